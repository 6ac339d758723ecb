package supervisor

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// rewritePane creates a session whose pane prints "AAAA" and returns the
// cursor to where it was, then waits for the tmux channel ch and does the
// same with "BBBB": a change of content that leaves every state field a
// barrier or probe reads (history size, cursor, size, mode, PID) as it was.
// The pane's own tmux client reaches its server through $TMUX.
func rewritePane(t *testing.T, srv *Server, name, ch string) tmux.PaneID {
	t.Helper()
	script := fmt.Sprintf(`printf 'AAAA\r'; tmux wait-for %s; printf 'BBBB\r'; exec cat`, ch)
	pane := tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", name, script))
	tmuxtest.WaitFor(t, 5*time.Second, "AAAA on screen", func() bool {
		c, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane})
		return err == nil && strings.Contains(string(c.Content), "AAAA")
	})
	return pane
}

// rewrite signals ch and waits until tmux itself shows BBBB in pane (read
// with a separate exec client, behind the supervisor's back).
func rewrite(t *testing.T, ts *tmuxtest.Server, pane tmux.PaneID, ch string) {
	t.Helper()
	ts.MustTmux("wait-for", "-S", ch)
	tmuxtest.WaitFor(t, 5*time.Second, "tmux to show BBBB", func() bool {
		out, err := ts.Tmux("capture-pane", "-p", "-t", string(pane))
		return err == nil && strings.Contains(out, "BBBB")
	})
}

// cachedCapture captures pane until the answer comes from cache (the
// watcher or probe vouches for it) and returns it.
func cachedCapture(t *testing.T, srv *Server, pane tmux.PaneID) Capture {
	t.Helper()
	var got Capture
	tmuxtest.WaitFor(t, 5*time.Second, "a cached capture", func() bool {
		c, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane})
		got = c
		return err == nil && c.Cached
	})
	return got
}

func mustFresh(t *testing.T, srv *Server, pane tmux.PaneID, want string) Capture {
	t.Helper()
	c, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(c.Content), want) {
		t.Fatalf("capture (cached=%v, freshness=%s) lacks %q, which tmux showed before the call: %q",
			c.Cached, c.Freshness, want, c.Content)
	}
	return c
}

func watcherOf(t *testing.T, srv *Server, pane tmux.PaneID) capture.Watcher {
	t.Helper()
	sess := srv.sessionOf(testCtx(t), pane)
	if sess == "" {
		t.Fatalf("no session for %s", pane)
	}
	w, ok := srv.fresh.Watcher(sess)
	if !ok {
		t.Fatalf("no watcher on %s", sess)
	}
	return w
}

// noWatchers reports whether srv's tmux is one on which no watcher
// connection is opened (tmux.Capabilities.DeadPaneOutputCrash: 3.2a).
func noWatchers(t *testing.T, srv *Server) bool {
	t.Helper()
	v, err := srv.client.ServerVersion(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return v.Capabilities().DeadPaneOutputCrash
}

// wantNoWatcher checks that neither the supervisor nor tmux has a watcher
// connection: the only control client attached is the command connection
// (no-output).
func wantNoWatcher(t *testing.T, ts *tmuxtest.Server, srv *Server) {
	t.Helper()
	if n := srv.fresh.Watchers(); n != 0 {
		t.Errorf("watchers = %d, want 0", n)
	}
	clients := ts.MustTmux("list-clients", "-F", "#{client_control_mode}:#{client_flags}")
	for _, c := range strings.Split(clients, "\n") {
		if !strings.Contains(c, "no-output") {
			t.Errorf("client %q attached: want only the command connection (no-output)", c)
		}
	}
}

// TestPausedPaneIsNeverServedFromCache: a pane its watcher paused is
// captured from tmux. Where no watcher is opened (3.2a) nothing pauses:
// the probe vouches for the silent pane and sees the rewrite in place.
func TestPausedPaneIsNeverServedFromCache(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ReadRate: 1000, ReadBurst: 1000, manualContinue: true})
	srv := mustServer(t, sup)
	pane := rewritePane(t, srv, "p", "go-p")
	if noWatchers(t, srv) {
		probeOnly(t, ts, srv, pane, "go-p")
		return
	}
	cachedCapture(t, srv, pane)
	w := watcherOf(t, srv, pane)
	// tmux pauses the pane for this watcher and drops its output from now
	// on, as it does for a watcher that falls pause-after behind.
	if _, err := w.Control().Run(testCtx(t), "refresh-client", "-A", string(pane)+":pause"); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the %pause", func() bool { return w.Paused(pane) })
	c := mustFresh(t, srv, pane, "AAAA")
	if c.Cached {
		t.Errorf("capture of a paused pane was served from cache")
	}
	rewrite(t, ts, pane, "go-p") // prints while paused: no %output reaches us
	if c := mustFresh(t, srv, pane, "BBBB"); c.Cached || c.Freshness != "none" {
		t.Errorf("capture of a paused pane: cached=%v freshness=%s, want false and none", c.Cached, c.Freshness)
	}
	// Continued: the cache may answer again.
	if _, err := w.Control().Run(testCtx(t), "refresh-client", "-A", string(pane)+":continue"); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the %continue", func() bool { return !w.Paused(pane) })
	if c := cachedCapture(t, srv, pane); !strings.Contains(string(c.Content), "BBBB") {
		t.Errorf("cached capture after continue = %q, want BBBB", c.Content)
	}
}

// probeOnly checks a server without watchers (3.2a): a capture of pane,
// which rewritePane made, is vouched for by the probe, no watcher
// connection is opened, and a rewrite in place (signalled on ch) is in the
// next capture once its second has passed.
func probeOnly(t *testing.T, ts *tmuxtest.Server, srv *Server, pane tmux.PaneID, ch string) {
	t.Helper()
	if c := cachedCapture(t, srv, pane); c.Freshness != "probe" {
		t.Errorf("freshness = %q, want probe (no watcher on this tmux)", c.Freshness)
	}
	wantNoWatcher(t, ts, srv)
	rewrite(t, ts, pane, ch)
	rewritten := time.Now().Unix()
	tmuxtest.WaitFor(t, 3*time.Second, "the next second", func() bool { return time.Now().Unix() > rewritten })
	if c := mustFresh(t, srv, pane, "BBBB"); c.Cached {
		t.Error("a rewrite in place was served from cache")
	}
	wantNoWatcher(t, ts, srv)
}

// TestWatcherReconnectInvalidatesWhatItCovered: output while a watcher
// reconnects is not covered by the new one. Where no watcher is opened
// (3.2a) there is none to kill: the probe covers the pane.
func TestWatcherReconnectInvalidatesWhatItCovered(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ReadRate: 1000, ReadBurst: 1000})
	srv := mustServer(t, sup)
	pane := rewritePane(t, srv, "r", "go-r")
	if noWatchers(t, srv) {
		probeOnly(t, ts, srv, pane, "go-r")
		return
	}
	cachedCapture(t, srv, pane)
	w := watcherOf(t, srv, pane)
	// Another client detaches the watcher: output from now until a new
	// watcher attaches is seen by nobody.
	ts.MustTmux("detach-client", "-s", string(w.Session()))
	tmuxtest.WaitFor(t, 5*time.Second, "the watcher to go", func() bool { return srv.fresh.Watchers() == 0 })
	rewrite(t, ts, pane, "go-r")
	c := mustFresh(t, srv, pane, "BBBB")
	if c.Cached {
		t.Error("capture after the watcher reconnected was served from what the old watcher covered")
	}
	if srv.fresh.Watchers() != 1 {
		t.Errorf("watchers = %d, want 1 (a new one)", srv.fresh.Watchers())
	}
}

func TestClearHistoryByAnotherClientIsSeen(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ReadRate: 1000, ReadBurst: 1000})
	srv := mustServer(t, sup)
	pane := tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "h", "-y", "10",
		"seq -f 'old-%g' 1 100; exec cat"))
	start := -200
	req := CaptureRequest{Pane: pane, Start: &start}
	tmuxtest.WaitFor(t, 5*time.Second, "old-100 in a cached capture", func() bool {
		c, err := srv.Capture(testCtx(t), req)
		return err == nil && c.Cached && strings.Contains(string(c.Content), "old-100")
	})
	// Another client clears the history: tmux reports it to nobody.
	ts.MustTmux("clear-history", "-t", string(pane))
	c, err := srv.Capture(testCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if c.Cached || strings.Contains(string(c.Content), "old-50\n") {
		t.Errorf("capture after clear-history: cached=%v, still holds old-50: %v", c.Cached, strings.Contains(string(c.Content), "old-50\n"))
	}
}

func TestProbeSeesARewriteInPlace(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ExecOnly: true, ReadRate: 1000, ReadBurst: 1000})
	srv := mustServer(t, sup)
	pane := rewritePane(t, srv, "e", "go-e")
	if c := cachedCapture(t, srv, pane); c.Freshness != "probe" {
		t.Fatalf("freshness = %q, want probe", c.Freshness)
	}
	rewrite(t, ts, pane, "go-e")
	// In the second of the rewrite the probe trusts nothing; after it, only
	// the window's activity tells that the pane printed.
	rewritten := time.Now().Unix()
	tmuxtest.WaitFor(t, 3*time.Second, "the next second", func() bool { return time.Now().Unix() > rewritten })
	if c := mustFresh(t, srv, pane, "BBBB"); c.Cached {
		t.Error("a rewrite in place was served from cache")
	}
}

var counterRe = regexp.MustCompile(`c-(\d+)`)

// maxCounter returns the largest N of the "c-N" lines in s, or -1.
func maxCounter(s string) int {
	top := -1
	for _, m := range counterRe.FindAllStringSubmatch(s, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && n > top {
			top = n
		}
	}
	return top
}

// TestConcurrentCapturesOfBusyPanesAreFresh: four panes print numbered
// lines at different rates; eight goroutines capture them as fast as they
// can, each checking its result against what a separate exec client saw
// just before the call. Linearizable means the newest line tmux showed
// before the call is never missing afterwards.
func TestConcurrentCapturesOfBusyPanesAreFresh(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ReadRate: 100000, ReadBurst: 100000, ServerRate: 100000, ServerBurst: 100000})
	srv := mustServer(t, sup)
	scripts := map[string]string{
		"1ms":   `i=0; while :; do i=$((i+1)); echo c-$i; sleep 0.001; done`,
		"10ms":  `i=0; while :; do i=$((i+1)); echo c-$i; sleep 0.01; done`,
		"100ms": `i=0; while :; do i=$((i+1)); echo c-$i; sleep 0.1; done`,
		"burst": `i=0; while :; do for j in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do i=$((i+1)); echo c-$i; done; sleep 0.3; done`,
	}
	var panes []tmux.PaneID
	for name, script := range scripts {
		panes = append(panes, tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", name, script)))
	}
	duration := 10 * time.Second
	if testing.Short() {
		duration = 3 * time.Second
	}
	deadline := time.Now().Add(duration)
	var calls, cached, misses atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				pane := panes[(g+i)%len(panes)]
				before, err := ts.Tmux("capture-pane", "-p", "-t", string(pane))
				if err != nil {
					t.Errorf("exec capture: %v", err)
					return
				}
				c, err := srv.Capture(context.Background(), CaptureRequest{Pane: pane})
				if err != nil {
					t.Errorf("capture: %v", err)
					return
				}
				calls.Add(1)
				if c.Cached {
					cached.Add(1)
				}
				if want, got := maxCounter(before), maxCounter(string(c.Content)); got < want {
					misses.Add(1)
					t.Errorf("pane %s: capture (cached=%v, freshness=%s) ends at c-%d, but tmux showed c-%d before the call",
						pane, c.Cached, c.Freshness, got, want)
				}
			}
		}()
	}
	wg.Wait()
	if noWatchers(t, srv) {
		wantNoWatcher(t, ts, srv)
	}
	h := srv.Health()
	t.Logf("%d captures, %d cached, %d misses; %d reached tmux, %d barriers", calls.Load(), cached.Load(), misses.Load(),
		h.Captures, h.Barriers)
}

// TestSilentPaneCostsBarriersNotCaptures: 600 captures of a silent pane
// reach tmux as barriers on its watcher, or where no watcher is opened
// (3.2a) as probes, never as captures.
func TestSilentPaneCostsBarriersNotCaptures(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ReadRate: 1000, ReadBurst: 1000})
	srv := mustServer(t, sup)
	pane := quietPane(t, srv, "quiet")
	want := "watcher"
	if noWatchers(t, srv) {
		want = "probe"
	}
	before := srv.Health()
	for i := 0; i < 600; i++ {
		c, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane})
		if err != nil {
			t.Fatal(err)
		}
		if !c.Cached || c.Freshness != want {
			t.Fatalf("capture %d: cached=%v freshness=%s, want a cached capture vouched for by the %s", i, c.Cached, c.Freshness, want)
		}
	}
	if want == "probe" {
		wantNoWatcher(t, ts, srv)
	}
	after := srv.Health()
	if got := after.Captures - before.Captures; got != 0 {
		t.Errorf("captures that reached tmux = %d, want 0", got)
	}
	if got := after.Barriers - before.Barriers; got < 1 || got > 600 {
		t.Errorf("barriers = %d, want between 1 and 600 (at most one per capture)", got)
	}
	if got := after.Commands - before.Commands; got != 0 {
		t.Errorf("commands = %d, want 0: barriers are not counted as commands", got)
	}
}
