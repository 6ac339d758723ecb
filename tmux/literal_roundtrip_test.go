package tmux_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// hostile returns texts that tmux would run or rewrite if they reached an
// argument that expands formats, or the command parser, as they are. None
// holds "/", so each can be a file name, nor anything tmux rewrites in a
// name as a matter of course ("\\", "$" before a letter; ":" and "." in a
// session name).
func hostile(trap *tmuxtest.Trap) []string {
	return []string{
		trap.Job(),
		"n" + trap.Job() + "x",
		"#{E:@trap}", // @trap holds a job: E: expands it as a format
		"#{session_name}#S#W#{?1,a,b}",
		"x ; display-message -p '" + trap.Job() + "' ; y", // a second command if ";" ended the first
		"x;", // ends a command on a tmux client's command line
		"a#", "##[x", "#[fg=red]", "100% #,",
	}
}

// TestDoorThroughTmux sends hostile names, titles, directories and file
// paths through both transports to the commands that expand formats and
// checks that tmux stored each exactly and ran no job.
func TestDoorThroughTmux(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, s := newClient(t, kind)
		trap := tmuxtest.NewTrap(t, s)
		s.MustTmux("set-option", "-g", "@trap", trap.Job())
		s.MustTmux("set-option", "-g", "default-command", "exec cat")
		base := t.TempDir()
		for _, h := range hostile(trap) {
			dir := filepath.Join(base, h)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			ids := strings.Fields(run(t, c, "new-session", "-d", "-s", h, "-n", h, "-c", dir, "-P", "-F", "#{session_id} #{window_id} #{pane_id}"))
			sess, win, pane := ids[0], ids[1], ids[2]
			check := func(what, format, want string) {
				t.Helper()
				if got := run(t, c, "display-message", "-p", "-t", pane, format); got != want {
					t.Errorf("%s: got %q, want %q", what, got, want)
				}
			}
			if !strings.ContainsAny(h, ":.") {
				check("new-session -s", "#{session_name}", h)
			}
			check("new-session -n", "#{window_name}", h)
			run(t, c, "rename-session", "-t", sess, "--", h+"2")
			if !strings.ContainsAny(h, ":.") {
				check("rename-session", "#{session_name}", h+"2")
			}
			run(t, c, "rename-window", "-t", win, "--", h+"2")
			check("rename-window", "#{window_name}", h+"2")
			run(t, c, "select-pane", "-t", pane, "-T", h)
			check("select-pane -T", "#{pane_title}", h)

			pane2 := run(t, c, "split-window", "-d", "-t", pane, "-c", dir, "-P", "-F", "#{pane_id}")
			run(t, c, "respawn-pane", "-k", "-t", pane, "-c", dir)
			for _, p := range []string{pane, pane2} {
				// Until the new process has changed directory, tmux reads the
				// server's own.
				tmuxtest.WaitFor(t, 5*time.Second, "the pane in "+dir, func() bool {
					return run(t, c, "display-message", "-p", "-t", p, "#{pane_current_path}") == dir
				})
			}

			file := filepath.Join(dir, h)
			if err := os.WriteFile(file, []byte("data"), 0o600); err != nil {
				t.Fatal(err)
			}
			run(t, c, "load-buffer", "-b", "lit", "--", file)
			run(t, c, "save-buffer", "-b", "lit", "--", file+"2")
			if b, err := os.ReadFile(file + "2"); err != nil || string(b) != "data" {
				t.Errorf("load-buffer/save-buffer through %q: %q, %v", file, b, err)
			}
		}
		if sprung := trap.Sprung(); len(sprung) > 0 {
			t.Errorf("format jobs ran: %v", sprung)
		}
	})
}

// TestDoorRefusesWhatTmuxWouldChange: a name tmux would store escaped is
// refused with ErrInvalidArg, as is a NUL byte, on both transports.
func TestDoorRefusesWhatTmuxWouldChange(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, _ := newClient(t, kind)
		for _, args := range [][]string{
			{"new-session", "-d", "-s", "tab\there"},
			{"new-session", "-d", "-s", "bad\xffutf8"},
			{"rename-session", "-t", "main", "line\nbreak"},
			{"set-buffer", "-b", "x", "--", "nul\x00byte"},
		} {
			_, err := c.Run(ctx(t), args...)
			if !errors.Is(err, tmux.ErrInvalidArg) {
				t.Errorf("%q: err = %v, want ErrInvalidArg", args, err)
			}
			if err != nil && strings.Contains(err.Error(), args[len(args)-1]) {
				t.Errorf("%q: error %q quotes the argument", args, err)
			}
		}
	})
}

// TestOneCommandEachRun: an argument that is or ends in ";" never ends
// the command, on either transport (a tmux client's command line would
// take it for a separator, and what follows for the next command).
func TestOneCommandEachRun(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, s := newClient(t, kind)
		pid := s.PID()
		for _, name := range []string{";", "x;", `x\;`} {
			run(t, c, "set-environment", "-g", "--", name, "kill-server")
			if !tmuxtest.Alive(pid) {
				t.Fatalf("set-environment %q kill-server: the server died", name)
			}
			if got := run(t, c, "show-environment", "-g", "--", name); got != name+"=kill-server" {
				t.Errorf("show-environment %q = %q, want %q", name, got, name+"=kill-server")
			}
		}
	})
}
