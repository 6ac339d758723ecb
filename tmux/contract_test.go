package tmux_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

var transports = []string{"exec", "control"}

// newClient starts an isolated server with one session "main" and returns a
// connected client using the given transport.
func newClient(t *testing.T, kind string) (*tmux.Client, *tmuxtest.Server) {
	t.Helper()
	s := tmuxtest.New(t)
	s.Start("main")
	c, err := tmux.NewClient(tmux.ClientOptions{
		Socket: tmux.Socket{Path: s.Socket}, Config: "/dev/null", Control: kind == "control",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Connect(ctx(t)); err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if got := c.Transport().Kind(); got != kind {
		t.Fatalf("transport = %q, want %q", got, kind)
	}
	return c, s
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func run(t *testing.T, c *tmux.Client, args ...string) string {
	t.Helper()
	out, err := c.Run(ctx(t), args...)
	if err != nil {
		t.Fatalf("tmux %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimRight(string(out), "\n")
}

func forEachTransport(t *testing.T, f func(t *testing.T, kind string)) {
	for _, kind := range transports {
		t.Run(kind, func(t *testing.T) { f(t, kind) })
	}
}

// caps returns the capabilities of c's server.
func caps(t *testing.T, c *tmux.Client) tmux.Capabilities {
	t.Helper()
	v, err := c.ServerVersion(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return v.Capabilities()
}

func TestContractHierarchy(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, _ := newClient(t, kind)
		run(t, c, "new-session", "-d", "-s", "work", "-x", "100", "-y", "30")
		win := run(t, c, "new-window", "-d", "-P", "-F", "#{window_id}", "-t", "=work:", "-n", "editor")
		pane := run(t, c, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", win)

		sessions, err := c.ListSessions(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range sessions {
			names = append(names, s.Name)
		}
		if got, want := strings.Join(names, ","), "main,work"; got != want {
			t.Errorf("sessions = %s, want %s (hidden session must not appear)", got, want)
		}
		var work tmux.Session
		for _, s := range sessions {
			if s.Name == "work" {
				work = s
			}
		}
		if got, want := work.Windows, 2; got != want {
			t.Errorf("work windows = %d, want %d", got, want)
		}
		if !strings.HasPrefix(string(work.ID), "$") || !strings.HasPrefix(string(work.ActivePaneID), "%") {
			t.Errorf("work ids = %q %q, want $N and %%N", work.ID, work.ActivePaneID)
		}

		windows, err := c.ListWindows(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		var editor *tmux.Window
		for i := range windows {
			if windows[i].SessionName == tmux.HiddenSession {
				t.Errorf("hidden session window listed: %+v", windows[i])
			}
			if string(windows[i].ID) == win {
				editor = &windows[i]
			}
		}
		if editor == nil {
			t.Fatalf("window %s not listed", win)
		}
		if got, want := editor.Name, "editor"; got != want {
			t.Errorf("window name = %q, want %q", got, want)
		}
		if got, want := editor.Panes, 2; got != want {
			t.Errorf("window panes = %d, want %d", got, want)
		}
		if want := "100x30"; kind == "control" && caps(t, c).ControlClientSizesWindows {
			want = "80x24" // the control client's size: see the capability
			if got := fmt.Sprintf("%dx%d", editor.Width, editor.Height); got != want {
				t.Errorf("window size = %s, want %s", got, want)
			}
		} else if editor.Width != 100 || editor.Height != 30 {
			t.Errorf("window size = %dx%d, want 100x30", editor.Width, editor.Height)
		}

		panes, err := c.ListPanes(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		var found *tmux.Pane
		for i := range panes {
			if string(panes[i].ID) == pane {
				found = &panes[i]
			}
		}
		if found == nil {
			t.Fatalf("pane %s not listed", pane)
		}
		if string(found.WindowID) != win || found.SessionName != "work" || found.PID <= 0 || found.TTY == "" {
			t.Errorf("pane = %+v, want window %s session work with a pid and tty", *found, win)
		}

		run(t, c, "kill-pane", "-t", pane)
		run(t, c, "kill-window", "-t", win)
		run(t, c, "kill-session", "-t", "=work")
		sessions, err = c.ListSessions(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(sessions), 1; got != want {
			t.Errorf("sessions after kill = %d, want %d", got, want)
		}
	})
}

// TestContractExactNames checks that a name target never matches by prefix.
func TestContractExactNames(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, _ := newClient(t, kind)
		run(t, c, "new-session", "-d", "-s", "agent-long")
		_, err := c.Run(ctx(t), "has-session", "-t", "=agent")
		if !errors.Is(err, tmux.ErrSessionNotFound) {
			t.Errorf("has-session =agent: got %v, want ErrSessionNotFound", err)
		}
	})
}

func TestContractSendKeysAndCapture(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, s := newClient(t, kind)
		pane := run(t, c, "display-message", "-p", "-t", "=main:", "#{pane_id}")
		// A pane whose content we control exactly: no shell prompt.
		run(t, c, "respawn-pane", "-k", "-t", pane, "sh -c 'printf \"alpha\\\\tbeta back\\\\\\\\slash\\\\n\"; seq 1 200; exec cat'")
		tmuxtest.WaitFor(t, 5*time.Second, "seq output", func() bool {
			out, _ := s.Tmux("capture-pane", "-p", "-t", pane)
			return strings.Contains(out, "200")
		})

		visible, err := c.Capture(ctx(t), tmux.CaptureOptions{Target: pane})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(visible), "\n"), "\n")
		if got, want := len(lines), 40; got != want {
			t.Errorf("visible lines = %d, want %d", got, want)
		}
		if !bytes.Contains(visible, []byte("200\n")) {
			t.Errorf("visible capture lacks the last line: %q", visible)
		}

		// The same capture over exec is the reference.
		ref, err := c.Exec().Run(ctx(t), "capture-pane", "-p", "-S", "-", "-t", pane)
		if err != nil {
			t.Fatal(err)
		}
		all, err := c.Capture(ctx(t), tmux.CaptureOptions{Target: pane, Start: "-"})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(all, ref) {
			t.Errorf("full capture over %s differs from exec:\n got %q\nwant %q", kind, head(all), head(ref))
		}
		// The backslash must survive show-buffer's escaping on the control
		// path. (The tab is spaces up to 3.5a; 3.6 keeps tabs in captures.)
		if !bytes.Contains(all, []byte("beta back\\slash\n")) {
			t.Errorf("backslash not preserved: %q", head(all))
		}

		ranged, err := c.Capture(ctx(t), tmux.CaptureOptions{Target: pane, Start: "-5", End: "-1"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Count(string(ranged), "\n"), 5; got != want {
			t.Errorf("range -5..-1 lines = %d, want %d: %q", got, want, ranged)
		}

		// send-keys reaches the program: cat echoes the line back.
		run(t, c, "send-keys", "-t", pane, "-l", "hello; #{x} $HOME")
		run(t, c, "send-keys", "-t", pane, "Enter")
		tmuxtest.WaitFor(t, 5*time.Second, "echoed keys", func() bool {
			out, err := c.Capture(ctx(t), tmux.CaptureOptions{Target: pane})
			return err == nil && strings.Count(string(out), "hello; #{x} $HOME") >= 2
		})
	})
}

func head(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}

// TestInfo checks the server's identity and session count (the hidden
// session of the command connection not counted) on both transports.
func TestInfo(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, s := newClient(t, kind)
		run(t, c, "new-session", "-d", "-s", "second")
		info, err := c.Info(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		pid := run(t, c, "display-message", "-p", "#{pid}")
		if fmt.Sprint(info.PID) != pid || info.Sessions != 2 || info.SocketPath != s.Socket || info.Version.Raw == "" || info.StartTime == 0 {
			t.Errorf("got %+v, want pid %s, 2 sessions, socket %s, a version and a start time", info, pid, s.Socket)
		}
	})
}

// TestListPanesWith checks that a listing of some fields reads those (and
// the IDs and session name), leaves the rest zero, and refuses a name it
// does not know.
func TestListPanesWith(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, srv := newClient(t, kind)
		// Until the pane runs its shell tmux reads its directory as
		// empty, then as the server's own: both reads must see the last.
		srv.PanePath("=main:")
		full, err := c.ListPanes(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		some, err := c.ListPanesWith(ctx(t), "pane_tty", "pane_current_path")
		if err != nil {
			t.Fatal(err)
		}
		if len(full) != 1 || len(some) != 1 {
			t.Fatalf("got %d and %d panes, want 1 (the hidden session left out)", len(full), len(some))
		}
		f, s := full[0], some[0]
		want := tmux.Pane{ID: f.ID, SessionID: f.SessionID, SessionName: f.SessionName, TTY: f.TTY, CurrentPath: f.CurrentPath}
		if s != want || s.TTY == "" || s.CurrentPath == "" {
			t.Errorf("got %+v, want %+v", s, want)
		}
		if _, err := c.ListPanesWith(ctx(t), "pane_tty", "no_such_field"); err == nil || !strings.Contains(err.Error(), "no_such_field") {
			t.Errorf("unknown field: got %v, want an error naming it", err)
		}
	})
}

// TestPaneByID: Pane reads one pane as ListPanes does; a missing pane and
// a pane of the hidden session are ErrPaneNotFound.
func TestPaneByID(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, _ := newClient(t, kind)
		// The session's own pane runs a shell, which moves the cursor when
		// it draws its prompt: let it have drawn it, or the two reads
		// below may see two cursors (make ci on a loaded machine did).
		tmuxtest.WaitFor(t, 10*time.Second, "the first pane's prompt", func() bool {
			return run(t, c, "display-message", "-p", "-t", "=main:0.0", "#{cursor_x}") != "0"
		})
		run(t, c, "split-window", "-d", "-t", "=main:", "exec cat")
		run(t, c, "new-window", "-d", "-t", "=main:", "exec cat")
		all, err := c.ListPanes(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 3 {
			t.Fatalf("listed %d panes, want 3", len(all))
		}
		for _, want := range all {
			got, err := c.Pane(ctx(t), want.ID)
			if err != nil {
				t.Fatalf("Pane(%s): %v", want.ID, err)
			}
			// What the pane runs (a shell that execs cat), the name
			// automatic-rename gives its window and, while the pane
			// starts, its directory (empty, then tmux's own until the
			// pane's command runs) may change between reads.
			got.CurrentCommand, got.WindowName, want.CurrentCommand, want.WindowName = "", "", "", ""
			got.CurrentPath, want.CurrentPath = "", ""
			if got != want {
				t.Errorf("Pane(%s) = %+v, want %+v", want.ID, got, want)
			}
		}
		missing := []tmux.PaneID{"%999"}
		if kind == "control" { // the command connection's hidden session
			hidden := run(t, c, "list-panes", "-t", "="+tmux.HiddenSession+":", "-F", "#{pane_id}")
			missing = append(missing, tmux.PaneID(strings.Fields(hidden)[0]))
		}
		for _, id := range missing {
			if _, err := c.Pane(ctx(t), id); !errors.Is(err, tmux.ErrPaneNotFound) {
				t.Errorf("Pane(%s) error = %v, want ErrPaneNotFound", id, err)
			}
		}
	})
}
