package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestClearPane(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.printLines("CLEAR_MARKER_", 60)
	var m messageResult
	e.ok("clear_pane", map[string]any{"pane_id": p}, &m)
	if m.Result != "Pane cleared: "+p {
		t.Errorf("clear_pane = %q, want Pane cleared: %s", m.Result, p)
	}
	if out := e.tmux("capture-pane", "-p", "-S", "-200", "-t", p); strings.Contains(out, "CLEAR_MARKER_") {
		t.Errorf("after clear_pane the pane still holds:\n%s", out)
	}
	if h := e.tmux("display-message", "-p", "-t", p, "#{history_size}"); h != "0" {
		t.Errorf("history_size after clear_pane = %s, want 0", h)
	}
	e.fails("clear_pane", map[string]any{"pane_id": "%999999"}, "Pane not found: %999999")
	e.fails("clear_pane", map[string]any{"pane_id": p, "keys": "x"}, "unknown argument(s): keys")
}

// TestPipePanePaths pipes into files whose names hold what tmux's format
// expansion or a shell would take for something else: each name is used
// as given.
func TestPipePanePaths(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.window("exec cat")
	names := []string{"fmt-#{pane_id}.log", "job-#(echo pwned).log", "#Session.log", "style-#[fg=red].log",
		"run-##[x.log", "already-##{x}.log", "issue #42.log", "100%done.log", "date-%Y.log", "quote's.log",
		"with space.log", "trail#"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			e := *e
			e.t = t
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			var m messageResult
			e.ok("pipe_pane", map[string]any{"pane_id": p, "output_path": path}, &m)
			if m.Result != "Piping pane "+p+" to "+path {
				t.Errorf("pipe_pane = %q, want Piping pane %s to %s", m.Result, p, path)
			}
			e.ttyWrite(p, "PIPED "+name+"\r\n")
			waitFileContains(t, path, "PIPED "+name)
			e.ok("pipe_pane", map[string]any{"pane_id": p}, &m)
			if m.Result != "Piping stopped for pane "+p {
				t.Errorf("pipe_pane() = %q, want Piping stopped for pane %s", m.Result, p)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				var got []string
				for _, en := range entries {
					got = append(got, en.Name())
				}
				t.Errorf("directory holds %q, want only %q", got, name)
			}
		})
	}
}

func waitFileContains(t *testing.T, file, want string) {
	t.Helper()
	tmuxtest.WaitFor(t, 10*time.Second, "file "+file+" to hold "+want, func() bool {
		b, _ := os.ReadFile(file)
		return strings.Contains(string(b), want)
	})
}

func TestPipePaneRules(t *testing.T) {
	extra := t.TempDir()
	e := newEnv(t, Mutating, func(d *Deps) { d.PipeDirs = []string{extra} })
	cwd := t.TempDir()
	p := e.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-c", cwd, "-t", "main:", "exec cat")
	var m messageResult
	e.ok("pipe_pane", map[string]any{"pane_id": p, "output_path": "rel.log"}, &m)
	if want := "Piping pane " + p + " to " + filepath.Join(cwd, "rel.log"); m.Result != want {
		t.Errorf("pipe_pane(relative) = %q, want %q", m.Result, want)
	}
	e.ok("pipe_pane", map[string]any{"pane_id": p, "output_path": filepath.Join(extra, "x.log")}, nil)
	e.ok("pipe_pane", map[string]any{"pane_id": p, "output_path": filepath.Join(os.TempDir(), "tmux-mcp-pipe-test.log")}, nil)
	defer os.Remove(filepath.Join(os.TempDir(), "tmux-mcp-pipe-test.log"))
	e.ok("pipe_pane", map[string]any{"pane_id": p}, nil)

	outside := "/etc/tmux-mcp-should-not-exist.log"
	link := filepath.Join(cwd, "escape")
	if err := os.Symlink("/etc", link); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(cwd, "target")
	if err := os.Symlink("/etc/passwd", target); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		path string
		want string
	}{
		{"", "output_path must be a non-empty path, or null to stop piping."},
		{"  \t", "output_path must be a non-empty path"},
		{outside, "is outside the directories pipe_pane may write to"},
		{filepath.Join(link, "x.log"), "is outside the directories pipe_pane may write to"},
		{target, "is not a regular file"},
		{filepath.Join(cwd, "no-such-dir", "x.log"), "its directory does not exist"},
		{filepath.Join(cwd, "new\nline.log"), "must not contain control characters"},
	}
	for _, tt := range bad {
		e.fails("pipe_pane", map[string]any{"pane_id": p, "output_path": tt.path}, tt.want)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("%s was created", outside)
	}
}
