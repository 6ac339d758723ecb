package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
)

// recorder collects a supervisor's events.
type recorder struct {
	mu     sync.Mutex
	events []Event
	signal chan struct{}
}

func record(sup *Supervisor) *recorder {
	r := &recorder{signal: make(chan struct{}, 1)}
	sup.Subscribe(func(e Event) {
		r.mu.Lock()
		r.events = append(r.events, e)
		r.mu.Unlock()
		select {
		case r.signal <- struct{}{}:
		default:
		}
	})
	return r
}

// wait returns the first event matching ok, waiting up to timeout.
func (r *recorder) wait(t *testing.T, timeout time.Duration, what string, ok func(Event) bool) Event {
	t.Helper()
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		for _, e := range r.events {
			if ok(e) {
				r.mu.Unlock()
				return e
			}
		}
		r.mu.Unlock()
		select {
		case <-r.signal:
		case <-deadline:
			t.Fatalf("no %s event within %v; events: %v", what, timeout, r.types())
		}
	}
}

func (r *recorder) count(ok func(Event) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if ok(e) {
			n++
		}
	}
	return n
}

func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Type != EventCommand && e.Type != EventCacheHit {
			out = append(out, fmt.Sprintf("%s(%s)", e.Type, e.Cause))
		}
	}
	return out
}

func isType(typ EventType) func(Event) bool { return func(e Event) bool { return e.Type == typ } }

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newSup returns a supervisor whose default server lives on an isolated
// socket, with fast restarts for tests.
func newSup(t *testing.T, ts *tmuxtest.Server, cfg Config) *Supervisor {
	t.Helper()
	cfg.DefaultSocket = tmux.Socket{Path: ts.Socket}
	cfg.TmuxConfig = "/dev/null"
	if cfg.Restart.Initial == 0 {
		cfg.Restart.Initial = 20 * time.Millisecond
	}
	if cfg.ProbeInterval == 0 {
		cfg.ProbeInterval = 100 * time.Millisecond
	}
	sup := New(cfg)
	// Servers the supervisor starts are this test's: make sure cleanup ends
	// them even if they stopped answering.
	sup.Subscribe(func(e Event) {
		if e.Type == EventServerStarted || e.Type == EventServerAdopted {
			ts.Track(e.PID)
		}
	})
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return sup
}

func mustServer(t *testing.T, sup *Supervisor) *Server {
	t.Helper()
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatalf("default server: %v", err)
	}
	return srv
}

func mustDo(t *testing.T, srv *Server, args ...string) string {
	t.Helper()
	out, err := srv.Do(testCtx(t), args...)
	if err != nil {
		t.Fatalf("tmux %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

func TestKill9DetectedAndRestarted(t *testing.T) {
	for _, execOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("execOnly=%v", execOnly), func(t *testing.T) {
			ts := tmuxtest.New(t)
			sup := newSup(t, ts, Config{ExecOnly: execOnly})
			rec := record(sup)
			srv := mustServer(t, sup)
			mustDo(t, srv, "new-session", "-d", "-s", "work")
			pid := srv.Health().PID
			if pid <= 0 {
				t.Fatalf("health pid = %d", pid)
			}
			killed := time.Now()
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			died := rec.wait(t, 5*time.Second, "server_died", isType(EventServerDied))
			latency := died.Time.Sub(killed)
			t.Logf("death noticed %v after kill -9 (execOnly=%v)", latency, execOnly)
			if got, want := died.Cause, death.CauseKilled; got != want {
				t.Errorf("cause = %q, want %q (%s)", got, want, died.Detail)
			}
			if died.PID != pid {
				t.Errorf("died pid = %d, want %d", died.PID, pid)
			}
			rec.wait(t, 10*time.Second, "restarted", isType(EventRestarted))
			if out := mustDo(t, srv, "display-message", "-p", "#{pid}"); out == fmt.Sprint(pid) {
				t.Errorf("server pid after restart = %s, want a new one", out)
			}
			h := srv.Health()
			if h.State != StateUp || h.Restarts != 1 || h.LastDeathCause != death.CauseKilled {
				t.Errorf("health = %+v, want up, 1 restart, last cause killed", h)
			}
		})
	}
}

func TestCallsFailFastWhileRestarting(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{Restart: death.RestartPolicy{Initial: 2 * time.Second, Max: 2 * time.Second}})
	rec := record(sup)
	srv := mustServer(t, sup)
	syscall.Kill(srv.Health().PID, syscall.SIGKILL)
	rec.wait(t, 5*time.Second, "restarting", isType(EventRestarting))
	start := time.Now()
	_, err := srv.Do(testCtx(t), "list-sessions")
	if !errors.Is(err, ErrRestarting) {
		t.Fatalf("got %v, want ErrRestarting", err)
	}
	if time.Since(start) > 100*time.Millisecond {
		t.Errorf("call took %v, want it to fail fast", time.Since(start))
	}
	if !strings.Contains(err.Error(), "tmux server restarting (attempt 1/5), retry in") {
		t.Errorf("message = %q", err)
	}
	// Asking the supervisor for the server fails fast too, and never starts
	// a second server beside the recovery.
	for _, lookup := range []func(context.Context, tmux.Socket) (*Server, error){sup.Server, sup.Existing} {
		if _, err := lookup(testCtx(t), tmux.Socket{Path: ts.Socket}); !errors.Is(err, ErrRestarting) {
			t.Errorf("lookup while restarting: got %v, want ErrRestarting", err)
		}
	}
	if n := rec.count(isType(EventServerStarted)); n != 1 {
		t.Errorf("servers started = %d, want 1 (no second server during the restart)", n)
	}
}

func TestSocketDeletedRecoveredBySIGUSR1(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("keep")
	ts.MustTmux("new-window", "-d", "-t", "=keep:", "-n", "second")
	sup := newSup(t, ts, Config{})
	rec := record(sup)
	srv := mustServer(t, sup)
	if err := os.Remove(ts.Socket); err != nil {
		t.Fatal(err)
	}
	died := rec.wait(t, 5*time.Second, "server_died", isType(EventServerDied))
	if got, want := died.Cause, death.CauseSocketDeleted; got != want {
		t.Fatalf("cause = %q, want %q", got, want)
	}
	rec.wait(t, 5*time.Second, "socket_recreated", isType(EventSocketRecreated))
	if _, err := os.Stat(ts.Socket); err != nil {
		t.Fatalf("socket not back: %v", err)
	}
	if got := mustDo(t, srv, "display-message", "-p", "#{pid}"); got != fmt.Sprint(pid) {
		t.Errorf("server pid = %s, want the original %d (no second server)", got, pid)
	}
	windows, err := srv.ListWindows(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(windows), 2; got != want {
		t.Errorf("windows after recovery = %d, want %d (sessions intact)", got, want)
	}
	if n := rec.count(isType(EventServerStarted)); n != 0 {
		t.Errorf("servers started = %d, want 0", n)
	}
}

// TestSocketDeletedNoticedAtTheNextCall: a call over the control
// connection still works after the socket is deleted, while every other
// client is refused. The first call must bring the socket back, not the
// next probe tick (here an hour away). On tmux 3.6 and later outside
// clients used to wait up to a probe interval (1.26 s measured).
func TestSocketDeletedNoticedAtTheNextCall(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("keep")
	sup := newSup(t, ts, Config{ProbeInterval: time.Hour})
	rec := record(sup)
	srv := mustServer(t, sup)
	mustDo(t, srv, "display-message", "-p", "#{pid}")
	if err := os.Remove(ts.Socket); err != nil {
		t.Fatal(err)
	}
	// Whatever this call answers, it must set the recovery going.
	srv.Do(testCtx(t), "display-message", "-p", "#{pid}") //nolint:errcheck
	rec.wait(t, 5*time.Second, "socket_recreated", isType(EventSocketRecreated))
	if got := ts.MustTmux("display-message", "-p", "#{pid}"); got != fmt.Sprint(pid) {
		t.Errorf("outside client reached PID %s, want the original %d", got, pid)
	}
}

func TestLastSessionGoneOnAdoptedServer(t *testing.T) {
	ts := tmuxtest.New(t)
	// exit-empty is on by default for a server tmux starts itself.
	ts.MustTmux("new-session", "-d", "-s", "only", "exec cat")
	ts.PID()
	sup := newSup(t, ts, Config{ExecOnly: true})
	rec := record(sup)
	srv := mustServer(t, sup)
	pane := mustDo(t, srv, "display-message", "-p", "-t", "=only:", "#{pane_id}")
	// The pane's program exits: the last session goes, and so does the server.
	mustDo(t, srv, "send-keys", "-t", pane, "C-d")
	died := rec.wait(t, 5*time.Second, "server_died", isType(EventServerDied))
	if got, want := died.Cause, death.CauseLastSession; got != want {
		t.Errorf("cause = %q, want %q (%s)", got, want, died.Detail)
	}
	if n := rec.count(isType(EventRestarting)); n != 0 {
		t.Errorf("restarting events = %d, want 0: a normal exit is not restarted eagerly", n)
	}
}

func TestSIGSTOPTimesOutThenRecovers(t *testing.T) {
	// The server process tmux-mcp started outlives supervision, and so does
	// the goroutine that waits for its exit status.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/tmux-mcp/tmux-mcp/supervisor/tmux.(*StartedServer).wait"))
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{CommandTimeout: 300 * time.Millisecond, Restart: death.RestartPolicy{HungAfter: time.Minute}})
	srv := mustServer(t, sup)
	pid := srv.Health().PID
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	t.Cleanup(func() {
		if stopped {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	})
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			_, err := srv.Do(context.Background(), "list-sessions")
			if !errors.Is(err, tmux.ErrTimeout) {
				t.Errorf("got %v, want ErrTimeout", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("call returned after %v, want within its 300ms deadline", d)
			}
		}()
	}
	wg.Wait()
	syscall.Kill(pid, syscall.SIGCONT)
	stopped = false
	tmuxtest.WaitFor(t, 5*time.Second, "calls to succeed after SIGCONT", func() bool {
		_, err := srv.Do(context.Background(), "list-sessions")
		return err == nil
	})
	if got := srv.Health().PID; got != pid {
		t.Errorf("pid = %d, want %d (a stop shorter than HungAfter must not restart)", got, pid)
	}
	sup.Close()
}

func TestSmallFDLimitWarnsThenRefuses(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{FDLimit: 40})
	rec := record(sup)
	srv := mustServer(t, sup)
	var refused error
	for i := 0; i < 60 && refused == nil; i++ {
		_, err := srv.Do(testCtx(t), "new-window", "-d")
		switch {
		case errors.Is(err, ErrResourceExhausted):
			refused = err
		case err != nil:
			t.Fatalf("window %d: %v, want success or ErrResourceExhausted", i, err)
		}
	}
	if refused == nil {
		t.Fatal("60 windows created under an fd limit of 40: never refused")
	}
	t.Logf("refused with: %v", refused)
	if !strings.Contains(refused.Error(), "of 40 file descriptors") {
		t.Errorf("refusal %q does not name the numbers", refused)
	}
	w := rec.wait(t, time.Second, "resource_warning", isType(EventResourceWarning))
	if w.Resource != "fds" || w.Limit != 40 {
		t.Errorf("warning = %+v, want fds of 40", w)
	}
	if r := rec.wait(t, time.Second, "resource_refused", isType(EventResourceRefused)); r.Resource != "fds" || r.Limit != 40 || r.Used == 0 {
		t.Errorf("refusal event = %+v, want fds used of 40", r)
	}
	// Not livelocked: the server still answers.
	mustDo(t, srv, "list-sessions")
}

// captures counts capture-pane calls that reached tmux.
func captures(r *recorder) int {
	return r.count(func(e Event) bool { return e.Type == EventCommand && e.Command == "capture-pane" })
}

func TestSilentPaneCapturesServedFromCache(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ReadRate: 1000, ReadBurst: 1000})
	rec := record(sup)
	srv := mustServer(t, sup)
	pane := tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "quiet", "printf ready; exec cat"))
	tmuxtest.WaitFor(t, 5*time.Second, "pane ready", func() bool {
		c, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane})
		return err == nil && strings.Contains(string(c.Content), "ready")
	})
	if noWatchers(t, srv) {
		// The probe vouches for a pane only once the second of its last
		// output has passed (probeTrusted): start from there.
		cachedCapture(t, srv, pane)
	}
	before := captures(rec)
	tick := time.NewTicker(10 * time.Millisecond) // 100/s
	defer tick.Stop()
	var first Capture
	for i := 0; i < 600; i++ {
		<-tick.C
		c, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane})
		if err != nil {
			t.Fatalf("capture %d: %v", i, err)
		}
		if i == 0 {
			first = c
		} else if c.SHA256 != first.SHA256 {
			t.Fatalf("capture %d differs from the first", i)
		}
	}
	if got := captures(rec) - before; got > 2 {
		t.Errorf("captures reaching tmux = %d, want at most 2", got)
	}
	h := srv.Health()
	t.Logf("cache hit ratio %.3f, hits %d", h.CacheHitRatio, h.CacheHits)
}

func TestBusyPaneCapturesAreFresh(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ReadRate: 1000, ReadBurst: 1000})
	srv := mustServer(t, sup)
	pane := tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "busy",
		"i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.1; done"))
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for i := 0; i < 600; i++ {
		<-tick.C
		// What tmux holds right now, read behind the supervisor's back.
		want, err := ts.Tmux("capture-pane", "-p", "-t", string(pane))
		if err != nil {
			t.Fatal(err)
		}
		c, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane})
		if err != nil {
			t.Fatalf("capture %d: %v", i, err)
		}
		last := lastLine(want)
		if !strings.Contains(string(c.Content), last) {
			t.Fatalf("capture %d: supervisor content lacks %q, which tmux showed before the call", i, last)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return lines[i]
		}
	}
	return ""
}

func TestConcurrentIdenticalCapturesShareOneCall(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ReadRate: 1000, ReadBurst: 1000})
	rec := record(sup)
	srv := mustServer(t, sup)
	pane := quietPane(t, srv, "c")
	// Nothing cached: every caller proves the pane unchanged (same
	// watcher, state and generation), so they may share one tmux call or
	// its cached result, whichever they find.
	srv.fresh.Changed()
	before := captures(rec)
	start := make(chan struct{})
	var unproven atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := srv.Capture(context.Background(), CaptureRequest{Pane: pane})
			if err != nil {
				t.Error(err)
			}
			if c.Freshness == "none" {
				unproven.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	// A machine too busy to answer a barrier within half a capture's time
	// budget leaves some captures unproven; those share only calls that
	// began after they arrived: at most two more.
	want := 1
	if unproven.Load() > 0 {
		want = 3
	}
	if got := captures(rec) - before; got < 1 || got > want {
		t.Errorf("tmux capture calls for 50 concurrent captures (%d unproven) = %d, want 1 to %d", unproven.Load(), got, want)
	}
}

// TestSharedCaptureAfterAStoreUnderItsProof covers the caller whose cache
// lookup missed while a run under the same proof was still at tmux, and
// that reaches the shared call only after that run ended: it gets the
// stored capture, not a second tmux call.
func TestSharedCaptureAfterAStoreUnderItsProof(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ReadRate: 1000, ReadBurst: 1000})
	rec := record(sup)
	srv := mustServer(t, sup)
	pane := quietPane(t, srv, "c")
	srv.fresh.Changed()
	req := CaptureRequest{Pane: pane}
	plan, err := capture.NewPlan(req, srv.cfg.captureLimits(), 0)
	if err != nil {
		t.Fatal(err)
	}
	key := plan.Key(req)
	var p capture.Proof
	tmuxtest.WaitFor(t, 5*time.Second, "a proof for the quiet pane", func() bool {
		p = srv.fresh.Prove(testCtx(t), pane, srv.sessionOf(testCtx(t), pane))
		return p.Proven()
	})
	if _, ok := srv.fresh.Lookup(p, key); ok {
		t.Fatal("the cache holds the capture after changed()")
	}
	before := captures(rec)
	first, err := srv.sharedCapture(testCtx(t), req, plan, key, p)
	if err != nil {
		t.Fatal(err)
	}
	second, err := srv.sharedCapture(testCtx(t), req, plan, key, p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := captures(rec)-before, 1; got != want {
		t.Errorf("tmux capture calls = %d, want %d", got, want)
	}
	if got, want := [2]bool{first.Cached, second.Cached}, [2]bool{false, true}; got != want {
		t.Errorf("cached (first, second) = %v, want %v", got, want)
	}
	if first.SHA256 != second.SHA256 {
		t.Errorf("second capture differs from the first: %q, want %q", second.Content, first.Content)
	}
}

func TestPaneRateLimit(t *testing.T) {
	ts := tmuxtest.New(t)
	// One capture per second per pane reaches tmux; waits of up to 100ms are
	// absorbed.
	sup := newSup(t, ts, Config{ReadRate: 1, ReadBurst: 1, RateWait: 100 * time.Millisecond})
	rec := record(sup)
	srv := mustServer(t, sup)
	pane := tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "r",
		"while :; do date +%N; sleep 0.01; done"))
	if _, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane}); err != nil {
		t.Fatal(err)
	}
	// Wait for the pane to print, so that the cache cannot answer: as the
	// watcher sees it, or where no watcher is opened (3.2a), as tmux shows
	// it (the probe then sees activity in the current second).
	if noWatchers(t, srv) {
		first := ts.MustTmux("capture-pane", "-p", "-t", string(pane))
		tmuxtest.WaitFor(t, 5*time.Second, "pane output", func() bool {
			return ts.MustTmux("capture-pane", "-p", "-t", string(pane)) != first
		})
	} else {
		gen := srv.fresh.Generation(pane)
		tmuxtest.WaitFor(t, 5*time.Second, "pane output", func() bool { return srv.fresh.Generation(pane) != gen })
	}
	_, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane})
	var rl *RateLimitedError
	if !errors.As(err, &rl) || !errors.Is(err, ErrRateLimited) {
		t.Fatalf("second capture: got %v, want a RateLimitedError", err)
	}
	if rl.RetryAfter <= 100*time.Millisecond || rl.RetryAfter > time.Second {
		t.Errorf("retry after %v, want between 100ms and 1s", rl.RetryAfter)
	}
	if !strings.Contains(err.Error(), "rate limited (pane "+string(pane)+"), retry after") {
		t.Errorf("message = %q", err)
	}
	if got := srv.Health().RateLimited; got != 1 {
		t.Errorf("health rate_limited = %d, want 1", got)
	}
	rec.wait(t, time.Second, "rate_limited", isType(EventRateLimited))
	// Once the bucket is nearly full again, a capture waits for its token
	// instead of failing.
	time.Sleep(rl.RetryAfter - 50*time.Millisecond) // the bucket refills with time; nothing to await
	if _, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane}); err != nil {
		t.Errorf("capture within RateWait of a token: %v, want it to wait and succeed", err)
	}
}

func TestCaptureCapsFullHistory(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{})
	srv := mustServer(t, sup)
	mustDo(t, srv, "set-option", "-g", "history-limit", "60000")
	pane := tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "h", "-x", "80", "-y", "40",
		"seq 1 50000; exec cat"))
	tmuxtest.WaitFor(t, 20*time.Second, "50,000 lines", func() bool {
		out, err := srv.Do(testCtx(t), "display-message", "-p", "-t", string(pane), "#{history_size}")
		n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
		return err == nil && n >= 49960
	})
	tests := []struct {
		name      string
		req       CaptureRequest
		lines     int
		last      string
		truncated bool
	}{
		{"full history is capped to the default 500 lines", CaptureRequest{Pane: pane, FullHistory: true}, 500, "50000", true},
		{"raised cap", CaptureRequest{Pane: pane, FullHistory: true, MaxLines: 2000}, 2000, "50000", true},
		{"byte cap keeps the tail", CaptureRequest{Pane: pane, FullHistory: true, MaxBytes: 1000}, -1, "50000", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := srv.Capture(testCtx(t), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if tt.lines >= 0 && c.Lines != tt.lines {
				t.Errorf("lines = %d, want %d", c.Lines, tt.lines)
			}
			if tt.req.MaxBytes > 0 && len(c.Content) > tt.req.MaxBytes {
				t.Errorf("bytes = %d, want at most %d", len(c.Content), tt.req.MaxBytes)
			}
			if c.Truncated != tt.truncated {
				t.Errorf("truncated = %v, want %v", c.Truncated, tt.truncated)
			}
			if !strings.Contains(string(c.Content), tt.last+"\n") {
				t.Errorf("capture lacks the last line %q", tt.last)
			}
		})
	}
	if _, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane, MaxLines: 20000}); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "max_lines 20000 is above the ceiling of 10000 lines") {
		t.Errorf("max_lines above the ceiling: got %v", err)
	}
}

// quietPane creates a session whose pane prints nothing and waits until its
// capture is served from cache: the watcher is up and the pane map known,
// so no later notification sends a capture to list-panes first (which would
// block on a stopped server).
func quietPane(t *testing.T, srv *Server, name string) tmux.PaneID {
	t.Helper()
	pane := tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", name, "exec cat"))
	tmuxtest.WaitFor(t, 5*time.Second, "a cached capture", func() bool {
		c, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane})
		return err == nil && c.Cached
	})
	return pane
}

// TestMeasureSocketReturn measures, for the tmux under test, how long after
// its socket file is deleted an outside client reaches the server again,
// when an agent's call is the first thing that happens (median of 10):
//
//	SUPERVISOR_MEASURE=1 go test -run MeasureSocketReturn -v ./supervisor/
func TestMeasureSocketReturn(t *testing.T) {
	if os.Getenv("SUPERVISOR_MEASURE") == "" {
		t.Skip("set SUPERVISOR_MEASURE=1 to measure")
	}
	var took []time.Duration
	for range 10 {
		ts := tmuxtest.New(t)
		ts.Start("keep")
		sup := newSup(t, ts, Config{})
		srv := mustServer(t, sup)
		mustDo(t, srv, "display-message", "-p", "#{pid}")
		start := time.Now()
		if err := os.Remove(ts.Socket); err != nil {
			t.Fatal(err)
		}
		srv.Do(testCtx(t), "display-message", "-p", "#{pid}") //nolint:errcheck
		tmuxtest.WaitFor(t, 10*time.Second, "an outside client to reach the server", func() bool {
			_, err := ts.TmuxWithin(time.Second, "display-message", "-p", "#{pid}")
			return err == nil
		})
		took = append(took, time.Since(start))
		sup.Close()
		ts.Kill()
	}
	slices.Sort(took)
	t.Logf("socket deleted + one call -> outside client answered: median %v (min %v, max %v)",
		took[len(took)/2].Round(time.Millisecond), took[0].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
}
