package supervisor

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// pipedSup returns a server whose panes no watcher covers (as on tmux
// 3.2a), so PaneChanges uses pipe feeds, and a pane running cat.
func pipedSup(t *testing.T) (*tmuxtest.Server, *Server, tmux.PaneID) {
	t.Helper()
	ts := tmuxtest.New(t)
	srv := mustServer(t, newSup(t, ts, Config{MaxWatchers: -1}))
	pane := tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "p", "exec cat"))
	return ts, srv, pane
}

// waitSignal fails unless ch receives a value (not closed) within 5s.
func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case _, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the feed ended instead", what)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no change signalled within 5s", what)
	}
}

// waitClosed fails unless ch is closed within 5s (values before are
// drained).
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("%s: the feed did not end within 5s", what)
		}
	}
}

func TestPipeFeedSignalsOutput(t *testing.T) {
	ts, srv, pane := pipedSup(t)
	ch, stop, err := srv.PaneChanges(testCtx(t), pane)
	if err != nil {
		t.Fatalf("PaneChanges without a watcher: %v", err)
	}
	if got := srv.Health(); got.PipeFeeds != 1 || got.Watchers != 0 {
		t.Errorf("pipe feeds, watchers = %d, %d; want 1, 0", got.PipeFeeds, got.Watchers)
	}
	ts.MustTmux("send-keys", "-t", string(pane), "-l", "hello")
	waitSignal(t, ch, "typed into the pane")
	// A second subscriber shares the pipe.
	ch2, stop2, err := srv.PaneChanges(testCtx(t), pane)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Health().PipeFeeds; got != 1 {
		t.Errorf("pipe feeds with two subscribers = %d, want 1", got)
	}
	ts.MustTmux("send-keys", "-t", string(pane), "-l", "again")
	waitSignal(t, ch2, "the second subscriber")
	stop()
	stop2()
	waitClosed(t, ch, "the first subscriber after stop")
	if got := srv.Health().PipeFeeds; got != 0 {
		t.Errorf("pipe feeds after the last stop = %d, want 0", got)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the pipe closed", func() bool {
		return strings.TrimSpace(ts.MustTmux("display-message", "-p", "-t", string(pane), "#{pane_pipe}")) == "0"
	})
}

func TestPipeFeedLeavesOthersPipesAlone(t *testing.T) {
	ts, srv, pane := pipedSup(t)
	ts.MustTmux("pipe-pane", "-t", string(pane), "cat >/dev/null")
	_, _, err := srv.PaneChanges(testCtx(t), pane)
	if !errors.Is(err, ErrNotWatched) {
		t.Fatalf("PaneChanges on a pane piped elsewhere: err = %v, want ErrNotWatched", err)
	}
	if got := strings.TrimSpace(ts.MustTmux("display-message", "-p", "-t", string(pane), "#{pane_pipe}")); got != "1" {
		t.Errorf("the other pipe is gone (pane_pipe = %s)", got)
	}
	// Replacing ours ends the feed: its subscribers then poll.
	ts.MustTmux("pipe-pane", "-t", string(pane))
	ch, stop, err := srv.PaneChanges(testCtx(t), pane)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ts.MustTmux("pipe-pane", "-t", string(pane), "cat >/dev/null")
	waitClosed(t, ch, "after another pipe replaced ours")
}

func TestPipeFeedEndsWithThePane(t *testing.T) {
	ts, srv, pane := pipedSup(t)
	ch, stop, err := srv.PaneChanges(testCtx(t), pane)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ts.MustTmux("kill-pane", "-t", string(pane))
	waitClosed(t, ch, "after the pane was killed")
	tmuxtest.WaitFor(t, 5*time.Second, "no pipe feed left", func() bool { return srv.Health().PipeFeeds == 0 })
}
