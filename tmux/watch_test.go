package tmux_test

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestWatchDeliversPaneOutput: a watcher connection gets the pane's
// output; on versions a watcher can crash (DeadPaneOutputCrash) Watch
// refuses instead.
func TestWatchDeliversPaneOutput(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	c, _ := newClient(t, "exec")
	pane := run(t, c, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "w", "exec cat")
	sess := tmux.SessionID(run(t, c, "display-message", "-p", "-t", pane, "#{session_id}"))

	if caps(t, c).DeadPaneOutputCrash {
		// A watcher would make the server crash when a remain-on-exit
		// pane dies: Watch refuses, and attaches no client.
		_, err := c.Watch(ctx(t), sess, tmux.WatchOptions{OnNotify: func(tmux.Notification) {}})
		if !errors.Is(err, tmux.ErrNoWatch) {
			t.Fatalf("Watch on a DeadPaneOutputCrash version: err = %v, want ErrNoWatch", err)
		}
		if clients := run(t, c, "list-clients", "-F", "#{client_pid}"); clients != "" {
			t.Errorf("clients after a refused Watch: %q, want none", clients)
		}
		if err := c.CanWatch(ctx(t)); !errors.Is(err, tmux.ErrNoWatch) {
			t.Errorf("CanWatch = %v, want ErrNoWatch", err)
		}
		return
	}
	if err := c.CanWatch(ctx(t)); err != nil {
		t.Fatalf("CanWatch = %v, want nil", err)
	}
	var mu sync.Mutex
	var got []byte
	w, err := c.Watch(ctx(t), sess, tmux.WatchOptions{OnNotify: func(n tmux.Notification) {
		if (n.Type == tmux.NotifyOutput || n.Type == tmux.NotifyExtendedOutput) && string(n.Pane) == pane {
			mu.Lock()
			got = append(got, n.Data...)
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	// Bytes that control mode escapes on the way: a backslash, a tab, and
	// UTF-8 that must arrive whole once the chunks are joined.
	run(t, c, "send-keys", "-t", pane, "-l", "tok\\en\twatch é")
	run(t, c, "send-keys", "-t", pane, "Enter")
	tmuxtest.WaitFor(t, 5*time.Second, "the echo as pane output", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return bytes.Contains(got, []byte("tok\\en\twatch é"))
	})
	if err := w.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	select {
	case <-w.Done():
	default:
		t.Error("Done not closed after Close")
	}
}
