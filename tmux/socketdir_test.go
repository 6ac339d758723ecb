package tmux

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSocketDirRule checks tmux's rule for the socket directory of -L
// names, on Linux's and macOS's filesystems as fakes.
func TestSocketDirRule(t *testing.T) {
	// linuxFS: /tmp is a directory; /run/user/1000 exists, /home/me/tmp
	// is a symlink to /data/tmp.
	linuxFS := fakeResolve(map[string]string{
		"/tmp": "/tmp", "/run/user/1000": "/run/user/1000", "/home/me/tmp": "/data/tmp",
	})
	// darwinFS: /tmp is a symlink to /private/tmp, and $TMPDIR is under
	// /var, a symlink to /private/var.
	darwinFS := fakeResolve(map[string]string{
		"/tmp": "/private/tmp", "/private/tmp": "/private/tmp",
		"/var/folders/x/T": "/private/var/folders/x/T",
	})
	tests := []struct {
		name       string
		tmuxTmpdir string
		systemTmp  string
		uid        int
		resolve    func(string) (string, error)
		want       string
	}{
		{"linux default", "", "/tmp", 1000, linuxFS, "/tmp/tmux-1000"},
		{"linux TMUX_TMPDIR", "/run/user/1000", "/tmp", 1000, linuxFS, "/run/user/1000/tmux-1000"},
		{"linux TMUX_TMPDIR through a symlink", "/home/me/tmp", "/tmp", 1000, linuxFS, "/data/tmp/tmux-1000"},
		{"linux TMUX_TMPDIR missing: tmux skips it", "/nonexistent", "/tmp", 1000, linuxFS, "/tmp/tmux-1000"},
		{"root", "", "/tmp", 0, linuxFS, "/tmp/tmux-0"},
		{"darwin default", "", "/private/tmp", 502, darwinFS, "/private/tmp/tmux-502"},
		{"darwin TMUX_TMPDIR=/tmp resolves", "/tmp", "/private/tmp", 502, darwinFS, "/private/tmp/tmux-502"},
		{"darwin TMUX_TMPDIR=$TMPDIR", "/var/folders/x/T", "/private/tmp", 501, darwinFS, "/private/var/folders/x/T/tmux-501"},
		{"nothing resolves: the system directory as it is", "/gone", "/private/tmp", 501, fakeResolve(nil), "/private/tmp/tmux-501"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := socketDir(tt.tmuxTmpdir, tt.systemTmp, tt.uid, tt.resolve); got != tt.want {
				t.Errorf("socketDir(%q, %q, %d) = %q, want %q", tt.tmuxTmpdir, tt.systemTmp, tt.uid, got, tt.want)
			}
		})
	}
}

// fakeResolve resolves the paths in links (path -> real path) and fails
// for every other.
func fakeResolve(links map[string]string) func(string) (string, error) {
	return func(p string) (string, error) {
		if r, ok := links[p]; ok {
			return r, nil
		}
		return "", os.ErrNotExist
	}
}

// TestSocketDirHere: on this machine, ResolvedPath of a -L name is the
// socket path tmux itself reports, in a TMUX_TMPDIR reached through a
// symlink; without TMUX_TMPDIR, SocketDir is under the system directory.
func TestSocketDirHere(t *testing.T) {
	tmp, err := os.MkdirTemp("", "sdir")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	link := filepath.Join(tmp, "link")
	if err := os.Mkdir(filepath.Join(tmp, "real"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMUX_TMPDIR", link)
	e := &Exec{Socket: Socket{Name: "sd"}, Config: "/dev/null", Env: []string{"SHELL=/bin/sh"}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := e.Run(ctx, "new-session", "-d", "-s", "x", "sleep 60"); err != nil {
		t.Fatalf("start a -L server: %v", err)
	}
	t.Cleanup(func() { e.Run(context.Background(), "kill-server") }) //nolint:errcheck // it may be gone
	out, err := e.Run(ctx, "display-message", "-p", "#{socket_path}")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Socket.ResolvedPath(), strings.TrimSpace(string(out)); got != want {
		t.Errorf("ResolvedPath() = %q, tmux says %q", got, want)
	}
	t.Setenv("TMUX_TMPDIR", "")
	sys, err := filepath.EvalSymlinks(systemTmpDir)
	if err != nil {
		t.Skipf("no %s here: %v", systemTmpDir, err)
	}
	if got, want := SocketDir(), filepath.Join(sys, "tmux-"+strconv.Itoa(os.Getuid())); got != want {
		t.Errorf("SocketDir() without TMUX_TMPDIR = %q, want %q", got, want)
	}
}
