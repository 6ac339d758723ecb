// Package scripts tests the shell scripts beside it: what scripts/tmux-build
// and scripts/matrix do on a machine without this project's CI sources.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fakeTmuxRepo makes a git repository whose tag version is a tree that
// builds as tmux-build builds tmux (autogen.sh, configure, make, make
// install) into a bin/tmux that prints "tmux <version>", and returns it
// with the tag's commit.
func fakeTmuxRepo(t *testing.T, version string) (repo, commit string) {
	t.Helper()
	repo = t.TempDir()
	files := map[string]string{
		"autogen.sh": "exit 0\n",
		"configure": "#!/bin/sh\nprefix=${1#--prefix=}\n" +
			"printf 'all:\\ninstall:\\n\\tmkdir -p %s/bin\\n\\tprintf \"#!/bin/sh\\\\necho tmux " + version + "\\\\n\" >%s/bin/tmux\\n\\tchmod +x %s/bin/tmux\\n' \"$prefix\" \"$prefix\" \"$prefix\" >Makefile\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "tmux "+version)
	git("tag", "-a", version, "-m", version)
	return repo, git("rev-parse", "HEAD")
}

// script runs a script of this directory with env added to a clean
// environment of the test's own (no CI, no caller's sources), and returns
// its output and exit status.
func script(t *testing.T, name string, env []string, args ...string) (string, int) {
	t.Helper()
	for _, p := range []string{"git", "make", "bash"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s", p)
		}
	}
	cmd := exec.Command("./"+name, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir(),
		"TMUX_SRC=" + t.TempDir(), "TMUX_MCP_TMUX_CACHE=" + t.TempDir()}, env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, out)
	return string(out), code
}

// needBuildTools skips a test that builds tmux from a git checkout when
// the machine lacks what that takes (.ci/run installs it), as tmux-build
// itself would refuse (exit 3).
func needBuildTools(t *testing.T) {
	t.Helper()
	for _, p := range []string{"autoconf", "automake", "pkg-config", "bison", "cc"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s: building tmux from git needs autoconf, automake, pkg-config, bison and a C compiler (.ci/run installs them)", p)
		}
	}
}

// TestTmuxBuildFetches checks that without an archive tmux-build fetches
// a release's tag, builds it only if the tag names the commit
// scripts/tmux-releases pins, and says which commit it found otherwise.
func TestTmuxBuildFetches(t *testing.T) {
	repo, commit := fakeTmuxRepo(t, "9.9z")
	pins := filepath.Join(t.TempDir(), "releases")
	for _, tt := range []struct {
		name, pin string
		wantCode  int
		want      *regexp.Regexp
	}{
		{"pinned commit", commit, 0, regexp.MustCompile(`(?m)^9\.9z (/\S+/9\.9z-[0-9a-f]{16}-o1/bin/tmux)$`)},
		{"another commit", strings.Repeat("0", 40), 1, regexp.MustCompile(`tag 9\.9z of \S+ is commit ` + commit + `, not 0{40} as \S+ pins: not building it`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.wantCode == 0 {
				needBuildTools(t)
			}
			if err := os.WriteFile(pins, []byte("# version commit\n9.9z "+tt.pin+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, code := script(t, "tmux-build", []string{"TMUX_MCP_TMUX_RELEASES=" + pins, "TMUX_MCP_TMUX_GIT=" + repo})
			m := tt.want.FindStringSubmatch(out)
			if code != tt.wantCode || m == nil {
				t.Fatalf("exit %d, want %d and output matching %q", code, tt.wantCode, tt.want)
			}
			if len(m) > 1 {
				if got, err := exec.Command(m[1]).Output(); err != nil || string(got) != "tmux 9.9z\n" {
					t.Errorf("the built %s prints %q (%v), want the fake tmux's version", m[1], got, err)
				}
			}
		})
	}
}

// TestMatrixWithoutSources checks what the README promises a machine
// outside this project's CI: without tmux archives and without a way to
// fetch them, scripts/matrix skips the matrix with a message that says how
// to run it, and exits 0; in CI that fails.
func TestMatrixWithoutSources(t *testing.T) {
	for _, tt := range []struct {
		name     string
		ci       []string
		wantCode int
		want     string
	}{
		{"outside CI", nil, 0, "matrix: SKIPPED: the tmux releases cannot be built here"},
		{"in CI", []string{"CI=true"}, 1, "matrix: FAILED: scripts/tmux-build exited 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := append([]string{"TMUX_MCP_TMUX_GIT=" + filepath.Join(t.TempDir(), "no-such-repo")}, tt.ci...)
			out, code := script(t, "matrix", env, "3.4")
			if code != tt.wantCode || !strings.Contains(out, tt.want) || !strings.Contains(out, "fetching tag 3.4 from") {
				t.Errorf("exit %d, want %d, %q and why it could not fetch", code, tt.wantCode, tt.want)
			}
		})
	}
}
