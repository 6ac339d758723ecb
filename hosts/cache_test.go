package hosts

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cacheLayout is a home and an install cache on this machine, for the
// remote shell's checks, run by the real sh and find.
type cacheLayout struct {
	t             *testing.T
	root, home    string
	cache, marker string
	env           []string
}

func newCacheLayout(t *testing.T) *cacheLayout {
	t.Helper()
	root := t.TempDir()
	l := &cacheLayout{t: t, root: root, home: filepath.Join(root, "home"), marker: filepath.Join(root, "ran")}
	l.mkdir(l.home, 0o700)
	l.cache = filepath.Join(l.home, ".cache")
	l.env = []string{"HOME=" + l.home, "PATH=/usr/bin:/bin"}
	return l
}

func (l *cacheLayout) mkdir(dir string, mode os.FileMode) {
	l.t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		l.t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		l.t.Fatal(err)
	}
}

// plant puts a tmux-mcp into the cache that leaves the marker when it
// runs, and returns its path and SHA-256.
func (l *cacheLayout) plant() (string, string) {
	l.t.Helper()
	bin := filepath.Join(l.cache, "tmux-mcp", "bin")
	l.mkdir(filepath.Join(l.cache, "tmux-mcp"), 0o700)
	l.mkdir(bin, 0o700)
	body := []byte("#!/bin/sh\necho \"$@\" >'" + l.marker + "'\n")
	path := filepath.Join(bin, "tmux-mcp")
	if err := os.WriteFile(path, body, 0o755); err != nil {
		l.t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	return path, hex.EncodeToString(sum[:])
}

// shells are the POSIX shells the scripts are run with: the system's sh
// (dash on Debian), and bash and zsh in sh mode (macOS's /bin/sh is bash)
// where installed.
func shells() []string {
	out := []string{"/bin/sh"}
	for _, sh := range []string{"bash", "zsh"} {
		if p, err := exec.LookPath(sh); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// shCommand runs a script with the shell sh in its POSIX mode.
func shCommand(sh, script string, args ...string) *exec.Cmd {
	switch filepath.Base(sh) {
	case "bash":
		return exec.Command(sh, append([]string{"--posix", "-c", script}, args...)...)
	case "zsh":
		return exec.Command(sh, append([]string{"--emulate", "sh", "-c", script}, args...)...)
	}
	return exec.Command(sh, append([]string{"-c", script}, args...)...)
}

// start runs the start script as the host would, with every shell, and
// returns its exit status, its stderr, and whether the cached copy ran;
// the shells must agree.
func (l *cacheLayout) start(install bool, sum string) (int, string, bool) {
	l.t.Helper()
	var code0 int
	var stderr0 string
	var ran0 bool
	for i, sh := range shells() {
		code, stderr, ran := l.startWith(sh, install, sum)
		if i == 0 {
			code0, stderr0, ran0 = code, stderr, ran
		} else if code != code0 || ran != ran0 {
			l.t.Errorf("%s: exit %d, ran %v, %q; /bin/sh: exit %d, ran %v, %q", sh, code, ran, stderr, code0, ran0, stderr0)
		}
	}
	return code0, stderr0, ran0
}

func (l *cacheLayout) startWith(sh string, install bool, sum string) (int, string, bool) {
	l.t.Helper()
	_ = os.Remove(l.marker)
	cmd := shCommand(sh, startScript(install, sum), "tmux-mcp", "serve")
	cmd.Env = l.env
	cmd.Dir = l.home
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		l.t.Fatal(err)
	}
	_, ran := os.Stat(l.marker)
	return code, stderr.String(), ran == nil
}

// TestStartScriptChecksTheCache: the remote shell runs the cached copy
// only when it is this binary (by SHA-256), a regular file that only the
// user (or root) can change, in directories only the user (or root) can
// change up to the home; a sticky root directory (as /tmp) may be
// writable above the install's own two.
func TestStartScriptChecksTheCache(t *testing.T) {
	root := os.Geteuid() == 0
	xdg := func(mode os.FileMode) func(l *cacheLayout) {
		return func(l *cacheLayout) {
			l.cache = filepath.Join(l.root, "xdg")
			l.mkdir(l.cache, mode|modeBits(mode))
			l.env = append(l.env, "XDG_CACHE_HOME="+l.cache)
		}
	}
	tests := []struct {
		name     string
		rootOnly bool
		before   func(l *cacheLayout)
		setup    func(l *cacheLayout, path string)
		wantCode int
		wantErr  string
	}{
		{name: "this binary in a safe cache", wantCode: 0},
		{name: "another build", setup: func(l *cacheLayout, path string) {
			if err := os.WriteFile(path, []byte("#!/bin/sh\necho \"$@\" >'"+l.marker+"'\n# other\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, wantCode: 125, wantErr: otherBuildMark},
		{name: "the file writable by others", setup: func(l *cacheLayout, path string) { chmod(t, path, 0o757) }, wantCode: 126, wantErr: "/bin/tmux-mcp is not safe"},
		{name: "the file writable by the group", setup: func(l *cacheLayout, path string) { chmod(t, path, 0o775) }, wantCode: 126, wantErr: "/bin/tmux-mcp is not safe"},
		{name: "bin writable by others", setup: func(l *cacheLayout, path string) { chmod(t, filepath.Dir(path), 0o777) }, wantCode: 126, wantErr: "is not safe"},
		{name: "bin sticky and writable by others", setup: func(l *cacheLayout, path string) { chmod(t, filepath.Dir(path), 0o1777) }, wantCode: 126, wantErr: "is not safe"},
		{name: "the home writable by the group", setup: func(l *cacheLayout, path string) { chmod(t, l.home, 0o770) }, wantCode: 126, wantErr: "/home is not safe"},
		{name: "a symbolic link", setup: func(l *cacheLayout, path string) {
			real := filepath.Join(filepath.Dir(path), "real")
			if err := os.Rename(path, real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, path); err != nil {
				t.Fatal(err)
			}
		}, wantCode: 126, wantErr: "symbolic link"},
		{name: "XDG_CACHE_HOME of the user's, outside the home", before: xdg(0o700), wantCode: 0},
		{name: "XDG_CACHE_HOME writable by others", before: xdg(0o777), wantCode: 126, wantErr: "/xdg is not safe"},
		{name: "XDG_CACHE_HOME that is not absolute is ignored", before: func(l *cacheLayout) {
			l.env = append(l.env, "XDG_CACHE_HOME=elsewhere")
		}, wantCode: 0},
		{name: "~/.cache a symbolic link to a safe directory", before: func(l *cacheLayout) {
			real := filepath.Join(l.root, "real-cache")
			l.mkdir(real, 0o700)
			if err := os.Symlink(real, l.cache); err != nil {
				t.Fatal(err)
			}
		}, wantCode: 0},
		{name: "~/.cache a symbolic link into a directory others can write", before: func(l *cacheLayout) {
			open := filepath.Join(l.root, "open")
			l.mkdir(open, 0o777)
			l.mkdir(filepath.Join(open, "cache"), 0o700)
			if err := os.Symlink(filepath.Join(open, "cache"), l.cache); err != nil {
				t.Fatal(err)
			}
		}, wantCode: 126, wantErr: "/open is not safe"},
		{name: "a home with spaces and quotes in its path", before: func(l *cacheLayout) {
			l.home = filepath.Join(l.root, "my home's \"dir\"")
			l.mkdir(l.home, 0o700)
			l.cache = filepath.Join(l.home, ".cache")
			l.env = []string{"HOME=" + l.home, "PATH=/usr/bin:/bin"}
		}, wantCode: 0},
		{name: "a home with spaces, writable by others", before: func(l *cacheLayout) {
			l.home = filepath.Join(l.root, "my home")
			l.mkdir(l.home, 0o777)
			l.cache = filepath.Join(l.home, ".cache")
			l.env = []string{"HOME=" + l.home, "PATH=/usr/bin:/bin"}
		}, wantCode: 126, wantErr: "/my home is not safe"},
		{name: "XDG_CACHE_HOME a root-owned sticky directory (as /tmp)", rootOnly: true, before: xdg(0o1777), wantCode: 0},
		{name: "planted by another user", rootOnly: true, setup: func(l *cacheLayout, path string) {
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, wantCode: 126, wantErr: "/bin/tmux-mcp is not safe"},
		{name: "bin of another user", rootOnly: true, setup: func(l *cacheLayout, path string) {
			if err := os.Chown(filepath.Dir(path), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, wantCode: 126, wantErr: "is not safe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rootOnly && !root {
				t.Skip("needs root to give a file to another user")
			}
			l := newCacheLayout(t)
			if tt.before != nil {
				tt.before(l)
			}
			path, sum := l.plant()
			if tt.setup != nil {
				tt.setup(l, path)
			}
			code, stderr, ran := l.start(false, sum)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) || ran != (tt.wantCode == 0) {
				t.Errorf("exit %d, ran %v, stderr %q; want exit %d with %q", code, ran, stderr, tt.wantCode, tt.wantErr)
			}
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode|modeBits(mode)); err != nil {
		t.Fatal(err)
	}
}

// modeBits maps the Unix sticky bit of an octal literal onto os's.
func modeBits(mode os.FileMode) os.FileMode {
	if mode&0o1000 != 0 {
		return os.ModeSticky
	}
	return 0
}

// TestStartScriptFindsNothing: without tmux-mcp on the PATH or in the
// cache, the host says it is not installed (exit 127), with or without
// --host-install.
func TestStartScriptFindsNothing(t *testing.T) {
	l := newCacheLayout(t)
	for _, install := range []bool{false, true} {
		if code, stderr, _ := l.start(install, "00"); code != 127 || !strings.Contains(stderr, "not installed") {
			t.Errorf("install %v: exit %d, %q; want 127, not installed", install, code, stderr)
		}
	}
}

// TestInstallScript: the copy lands in the cache, checked by SHA-256, in
// directories of mode 0700; into a directory others can write it is never
// written.
func TestInstallScript(t *testing.T) {
	body := []byte("#!/bin/sh\necho installed\n")
	s := sha256.Sum256(body)
	sum := hex.EncodeToString(s[:])
	install := func(l *cacheLayout, sum string) (string, error) {
		cmd := exec.Command("/bin/sh", "-c", installScript, "install", sum)
		cmd.Env = l.env
		cmd.Stdin = bytes.NewReader(body)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	l := newCacheLayout(t)
	if out, err := install(l, sum); err != nil {
		t.Fatalf("install: %v: %s", err, out)
	}
	path := filepath.Join(l.cache, "tmux-mcp", "bin", "tmux-mcp")
	for p, want := range map[string]os.FileMode{path: 0o755, filepath.Dir(path): 0o700, filepath.Dir(filepath.Dir(path)): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want mode %o", p, fi.Mode(), err, want)
		}
	}
	if code, stderr, _ := l.start(false, sum); code != 0 {
		t.Errorf("the installed copy: exit %d, %s", code, stderr)
	}
	if out, err := install(l, strings.Repeat("0", 64)); err == nil || !strings.Contains(out, "checksum mismatch") {
		t.Errorf("a copy with another checksum: %v %s", err, out)
	}

	open := newCacheLayout(t)
	open.cache = filepath.Join(open.root, "xdg")
	open.mkdir(open.cache, 0o777)
	open.env = append(open.env, "XDG_CACHE_HOME="+open.cache)
	out, err := install(open, sum)
	if err == nil || !strings.Contains(out, untrustedMark) || !strings.Contains(out, "/xdg is not safe") {
		t.Errorf("install under a directory others can write: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(open.cache, "tmux-mcp", "bin", "tmux-mcp")); err == nil {
		t.Error("the copy was written under a directory others can write")
	}
}

// TestStartScriptWithoutOpenSSL: where openssl is missing the checksum
// comes from coreutils (or macOS's shasum, BSD's sha256).
func TestStartScriptWithoutOpenSSL(t *testing.T) {
	l := newCacheLayout(t)
	bin := filepath.Join(l.root, "tools")
	l.mkdir(bin, 0o700)
	for _, tool := range []string{"find", "id", "ls", "awk", "sha256sum"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	l.env = []string{"HOME=" + l.home, "PATH=" + bin}
	_, sum := l.plant()
	if code, stderr, ran := l.start(false, sum); code != 0 || !ran {
		t.Errorf("without openssl: exit %d, ran %v, %q", code, ran, stderr)
	}
	if code, stderr, ran := l.start(false, strings.Repeat("0", 64)); code != 125 || ran {
		t.Errorf("without openssl, another sum: exit %d, ran %v, %q", code, ran, stderr)
	}
}

// TestScriptsSurviveALoginShell: the host's login shell parses the remote
// command line first; csh and tcsh expand '!' even in single quotes and
// end a quoted word at a newline, so the scripts hold neither.
func TestScriptsSurviveALoginShell(t *testing.T) {
	for name, s := range map[string]string{"start": startScript(false, strings.Repeat("a", 64)),
		"start --host-install": startScript(true, ""), "install": installScript} {
		if i := strings.IndexAny(s, "!\n"); i >= 0 {
			t.Errorf("%s script: %q at %d: %q", name, s[i], i, s[max(0, i-30):min(len(s), i+10)])
		}
	}
}

// TestRemoteCommandUnderLoginShells: ssh hands the remote command line to
// the user's login shell (sh, bash, zsh, fish, tcsh: those installed
// here); under each, the checked copy runs with its arguments intact (no
// '!': csh expands it even in single quotes, and tmux-mcp's own
// arguments never hold one), and a copy in a directory others can write is
// refused.
func TestRemoteCommandUnderLoginShells(t *testing.T) {
	var found []string
	for _, sh := range []string{"sh", "bash", "zsh", "fish", "tcsh"} {
		if p, err := exec.LookPath(sh); err == nil {
			found = append(found, p)
		}
	}
	for _, sh := range found {
		t.Run(filepath.Base(sh), func(t *testing.T) {
			l := newCacheLayout(t)
			path, _ := l.plant()
			link := newLink(Target{Name: "h", Host: "h"}, Options{RemoteArgs: []string{"serve", "--safety", "it's $HOME `x`"},
				Install: true, Self: path}.withDefaults())
			run := func() (int, string) {
				_ = os.Remove(l.marker)
				cmd := exec.Command(sh, "-c", link.remoteCommand())
				cmd.Env = append(l.env, "SHELL="+sh)
				cmd.Dir = l.home
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					return ee.ExitCode(), stderr.String()
				} else if err != nil {
					t.Fatal(err)
				}
				return 0, stderr.String()
			}
			if code, stderr := run(); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if b, err := os.ReadFile(l.marker); err != nil || string(b) != "serve --safety it's $HOME `x`\n" {
				t.Errorf("the copy ran with %q (%v)", b, err)
			}
			chmod(t, filepath.Dir(path), 0o777)
			if code, stderr := run(); code != 126 || !strings.Contains(stderr, untrustedMark) {
				t.Errorf("bin writable by others: exit %d, %q", code, stderr)
			}
			if _, err := os.Stat(l.marker); err == nil {
				t.Error("the copy ran from a directory others can write")
			}
		})
	}
}
