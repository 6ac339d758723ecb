package supervisor

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestPaneChanges: a subscription is signalled on output and closed with
// the session; exec-only mode and, where no watcher is opened (3.2a),
// a pipe feed signals instead (pipefeed_test.go has its cases).
func TestPaneChanges(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{})
	srv := mustServer(t, sup)
	pane := quietPane(t, srv, "s")
	if noWatchers(t, srv) {
		ch, stop, err := srv.PaneChanges(testCtx(t), pane)
		if err != nil {
			t.Fatalf("PaneChanges on a tmux without watchers: %v", err)
		}
		defer stop()
		if got := srv.Health().PipeFeeds; got != 1 {
			t.Errorf("pipe feeds = %d, want 1", got)
		}
		ts.MustTmux("send-keys", "-t", string(pane), "-l", "hello")
		waitSignal(t, ch, "output on a tmux without watchers")
		if _, _, err := srv.PaneChanges(testCtx(t), "%999"); !errors.Is(err, tmux.ErrPaneNotFound) {
			t.Errorf("unknown pane: got %v, want ErrPaneNotFound", err)
		}
		wantNoWatcher(t, ts, srv)
		return
	}
	changes, stop, err := srv.PaneChanges(testCtx(t), pane)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	select {
	case <-changes:
		t.Fatal("a change was signalled before the silent pane printed")
	default:
	}
	ts.MustTmux("send-keys", "-t", string(pane), "-l", "hello")
	select {
	case _, ok := <-changes:
		if !ok {
			t.Fatal("channel closed instead of signalling output")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no change signalled for output")
	}
	// The session goes: the watcher's connection ends, and so does the
	// subscription.
	ts.MustTmux("kill-session", "-t", "=s")
	tmuxtest.WaitFor(t, 5*time.Second, "the channel to close", func() bool {
		select {
		case _, ok := <-changes:
			return !ok
		default:
			return false
		}
	})

	if _, _, err := srv.PaneChanges(testCtx(t), "%999"); !errors.Is(err, tmux.ErrPaneNotFound) {
		t.Errorf("unknown pane: got %v, want ErrPaneNotFound", err)
	}
	sup2 := newSup(t, ts, Config{ExecOnly: true})
	srv2 := mustServer(t, sup2)
	other := tmux.PaneID(mustDo(t, srv2, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "x", "exec cat"))
	ch, stop2, err := srv2.PaneChanges(testCtx(t), other)
	if err != nil {
		t.Fatalf("exec-only: %v, want a pipe feed", err)
	}
	defer stop2()
	ts.MustTmux("send-keys", "-t", string(other), "-l", "hello")
	waitSignal(t, ch, "output in exec-only mode")
}

// TestChangedCaptureSkipsTheCache checks CaptureRequest.Changed: the
// capture goes to tmux without a barrier, is exact, and leaves the cache
// as it was (a later capture of the silent pane is still served from it).
func TestChangedCaptureSkipsTheCache(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ReadRate: 1000, ReadBurst: 1000})
	srv := mustServer(t, sup)
	pane := rewritePane(t, srv, "changed", "changed-ch")
	cachedCapture(t, srv, pane)
	before := srv.Health()
	c, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane, Changed: true})
	if err != nil {
		t.Fatal(err)
	}
	after := srv.Health()
	if c.Cached || c.Freshness != "none" {
		t.Errorf("got cached=%v freshness=%s, want a capture from tmux (freshness none)", c.Cached, c.Freshness)
	}
	if got := after.Barriers - before.Barriers; got != 0 {
		t.Errorf("barriers = %d, want 0", got)
	}
	if got := after.Captures - before.Captures; got != 1 {
		t.Errorf("captures that reached tmux = %d, want 1", got)
	}
	if !strings.Contains(string(c.Content), "AAAA") {
		t.Errorf("got %q, want AAAA", c.Content)
	}
	// What the cache held is still served while the pane stays silent.
	if c := cachedCapture(t, srv, pane); !strings.Contains(string(c.Content), "AAAA") {
		t.Errorf("cached capture %q, want AAAA", c.Content)
	}
	// Exact: a rewrite that changes no state field is in the next one.
	rewrite(t, ts, pane, "changed-ch")
	c, err = srv.Capture(testCtx(t), CaptureRequest{Pane: pane, Changed: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Cached || !strings.Contains(string(c.Content), "BBBB") {
		t.Errorf("after the rewrite: got cached=%v %q, want BBBB from tmux", c.Cached, c.Content)
	}
}

// TestWatcherCapHoldsUnderConcurrentDials: first captures of more
// sessions than Config.MaxWatchers, all at once, open at most MaxWatchers
// watcher connections (the cap counts dials under way); the rest are
// proven by the probe or read from tmux, and every capture answers.
func TestWatcherCapHoldsUnderConcurrentDials(t *testing.T) {
	tests := []struct {
		name string
		max  int // Config.MaxWatchers
		want int // at most this many watchers
	}{
		{"default", 0, DefaultMaxWatchers},
		{"three", 3, 3},
		{"none", -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := tmuxtest.New(t)
			sup := newSup(t, ts, Config{MaxWatchers: tt.max,
				ReadRate: 100000, ReadBurst: 100000, ServerRate: 100000, ServerBurst: 100000})
			srv := mustServer(t, sup)
			panes := make([]tmux.PaneID, tt.want+8)
			for i := range panes {
				panes[i] = tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", fmt.Sprintf("s%d", i), "exec cat"))
			}
			var wg sync.WaitGroup
			for _, p := range panes {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := srv.Capture(testCtx(t), CaptureRequest{Pane: p}); err != nil {
						t.Errorf("capture %s: %v", p, err)
					}
				}()
			}
			wg.Wait()
			want := tt.want
			if noWatchers(t, srv) {
				want = 0
			}
			if got := srv.fresh.Watchers(); got > want {
				t.Errorf("watchers = %d, want at most %d", got, want)
			}
			if got := watcherClients(t, ts); got > want {
				t.Errorf("tmux has %d watcher clients attached, want at most %d", got, want)
			}
		})
	}
}

// watcherClients counts the control clients attached to ts's server that
// receive output: tmux-mcp's watchers (its command connection has
// no-output).
func watcherClients(t *testing.T, ts *tmuxtest.Server) int {
	t.Helper()
	n := 0
	for _, c := range strings.Split(ts.MustTmux("list-clients", "-F", "#{client_flags}"), "\n") {
		if c != "" && !strings.Contains(c, "no-output") {
			n++
		}
	}
	return n
}
