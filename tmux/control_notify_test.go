package tmux

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// Notifications on a Control: delivered in order through OnNotify, and
// %pause answered for watchers with AutoContinue.

// notes collects notifications from OnNotify.
type notes struct {
	mu   sync.Mutex
	list []Notification
}

func (n *notes) add(x Notification) {
	n.mu.Lock()
	n.list = append(n.list, x)
	n.mu.Unlock()
}

func (n *notes) find(match func(Notification) bool) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, x := range n.list {
		if match(x) {
			return true
		}
	}
	return false
}

func (n *notes) dump(t *testing.T) {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, x := range n.list {
		t.Logf("notification %s %q", x.Type, x.Raw)
	}
}

func (n *notes) output(pane PaneID) []byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	var b []byte
	for _, x := range n.list {
		if (x.Type == NotifyOutput || x.Type == NotifyExtendedOutput) && x.Pane == pane {
			b = append(b, x.Data...)
		}
	}
	return b
}

func TestControlNotifications(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	s.Start("main")
	var got notes
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output", OnNotify: got.add})
	defer got.dump(t)

	win := strings.TrimSpace(runTest(t, c, "new-window", "-d", "-t", "=main:", "-P", "-F", "#{window_id}"))
	tmuxtest.WaitFor(t, 5*time.Second, "%window-add "+win, func() bool {
		return got.find(func(n Notification) bool { return n.Type == NotifyWindowAdd && n.Window == WindowID(win) })
	})
	s.MustTmux("new-session", "-d", "-s", "other")
	tmuxtest.WaitFor(t, 5*time.Second, "%sessions-changed", func() bool {
		return got.find(func(n Notification) bool { return n.Type == NotifySessionsChanged })
	})
	runTest(t, c, "rename-window", "-t", win, "new name")
	tmuxtest.WaitFor(t, 5*time.Second, "%window-renamed", func() bool {
		return got.find(func(n Notification) bool {
			return n.Type == NotifyWindowRenamed && n.Window == WindowID(win) && n.Name == "new name"
		})
	})
	sess := strings.TrimSpace(runTest(t, c, "display-message", "-p", "-t", "=main:", "#{session_id}"))
	runTest(t, c, "rename-session", "-t", "=main", "renamed")
	tmuxtest.WaitFor(t, 5*time.Second, "%session-renamed", func() bool {
		return got.find(func(n Notification) bool {
			return n.Type == NotifySessionRenamed && n.Session == SessionID(sess) && n.Name == "renamed"
		})
	})
	c.Close()
}

func TestControlOutputAndAutoContinue(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	s.Start("main")
	var got notes
	c := dialTest(t, s, ControlOptions{
		Target: "=main", Flags: "ignore-size,pause-after=5", OnNotify: got.add, AutoContinue: true,
	})
	defer got.dump(t)

	// The user's shell may take long to start (rc files); cat echoes
	// through the tty at once.
	pane := PaneID(strings.TrimSpace(runTest(t, c, "new-window", "-d", "-t", "=main:", "-P", "-F", "#{pane_id}", "exec cat")))
	s.MustTmux("send-keys", "-t", string(pane), "-l", "hello\n")
	tmuxtest.WaitFor(t, 5*time.Second, "output containing hello", func() bool {
		return bytes.Contains(got.output(pane), []byte("hello"))
	})
	if !got.find(func(n Notification) bool { return n.Type == NotifyExtendedOutput }) {
		t.Errorf("no %%extended-output with pause-after set")
	}

	// Pause the pane: AutoContinue must resume it.
	runTest(t, c, "refresh-client", "-A", string(pane)+":pause")
	tmuxtest.WaitFor(t, 5*time.Second, "%continue after %pause", func() bool {
		return got.find(func(n Notification) bool { return n.Type == NotifyContinue && n.Pane == pane })
	})
	s.MustTmux("send-keys", "-t", string(pane), "-l", "world\n")
	tmuxtest.WaitFor(t, 5*time.Second, "output after continue", func() bool {
		return bytes.Contains(got.output(pane), []byte("world"))
	})
	c.Close()
}
