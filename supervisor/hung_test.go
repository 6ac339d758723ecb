package supervisor

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// probeLog records the live server's liveness probes and verdicts.
type probeLog struct {
	mu       sync.Mutex
	verdicts map[death.Verdict]int
	streak   time.Time     // first timed-out probe of the current run of them
	longest  time.Duration // longest run of timed-out probes, first to last
}

// watchProbes installs a probeLog on srv.
func watchProbes(srv *Server) *probeLog {
	pl := &probeLog{verdicts: map[death.Verdict]int{}}
	srv.mu.Lock()
	srv.testProbeHook = func(l death.Liveness, v death.Verdict) {
		now := time.Now()
		pl.mu.Lock()
		defer pl.mu.Unlock()
		pl.verdicts[v]++
		if !l.TimedOut {
			pl.streak = time.Time{}
			return
		}
		if pl.streak.IsZero() {
			pl.streak = now
		}
		pl.longest = max(pl.longest, now.Sub(pl.streak))
	}
	srv.mu.Unlock()
	return pl
}

func (pl *probeLog) get() (longest time.Duration, verdicts map[death.Verdict]int) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	verdicts = map[death.Verdict]int{}
	for k, v := range pl.verdicts {
		verdicts[k] = v
	}
	return pl.longest, verdicts
}

// TestQueuedServerNotHung: tmux-mcp's command connection carries a queue
// of slow commands (run-shell without -b is answered at once, but holds
// the client's queue until it is done), so every liveness probe behind
// them times out, for longer than HungAfter, while answers keep arriving.
// The commands are delays (run-shell -d, no shell): a shell's fork and
// exec on a starved machine took longer than HungAfter between two
// answers (cold19, load 14-31), and then the server was rightly hung. The server is working, not
// hung: it must not be terminated. (Before the fix, probes that timed out
// for HungAfter in a row were enough.) CPU is ruled out as the reason it
// is spared: BusyHungAfter is HungAfter.
func TestQueuedServerNotHung(t *testing.T) {
	ts := tmuxtest.New(t)
	hungAfter := time.Second
	sup := newSup(t, ts, Config{Restart: death.RestartPolicy{HungAfter: hungAfter, BusyHungAfter: hungAfter}})
	rec := record(sup)
	srv := mustServer(t, sup)
	ctrl := srv.client.Control()
	if ctrl == nil {
		t.Fatal("no command connection")
	}
	pid := srv.Health().PID
	pl := watchProbes(srv)

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	// Six delays of 300 ms each in the queue at any time: a probe waits
	// about 1.8 s behind them, past its 1 s timeout, and an answer (the
	// next run-shell's) arrives every 300 ms.
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				ctrl.Run(rctx, "run-shell", "-d", "0.3") //nolint:errcheck // only the queue matters
				cancel()
			}
		}()
	}
	tmuxtest.WaitFor(t, 30*time.Second, "probes timing out for HungAfter in a row", func() bool {
		longest, _ := pl.get()
		return longest >= hungAfter+hungAfter/2 || rec.count(isType(EventServerDied)) > 0
	})
	stop()
	wg.Wait()

	_, verdicts := pl.get()
	if verdicts[death.VerdictHung] != 0 || verdicts[death.VerdictBusy] != 0 {
		t.Errorf("verdicts = %v, want neither hung nor busy: the server kept answering", verdicts)
	}
	if n := rec.count(isType(EventServerDied)); n != 0 {
		t.Errorf("server_died events = %d, want none", n)
	}
	mustDo(t, srv, "list-sessions")
	if h := srv.Health(); h.State != StateUp || h.PID != pid {
		t.Errorf("health = %+v, want the same server (PID %d) up", h, pid)
	}
}

// TestBusyServerNotHung: another client's commands keep the server from
// returning to its event loop (a chain of nested window loops in
// formats, doubled until it lasts long enough), so it answers nothing
// for longer than HungAfter, while its CPU time grows: it is busy, as
// with a batch of new-window on a starved machine, not stopped. It must
// not be terminated before BusyHungAfter.
func TestBusyServerNotHung(t *testing.T) {
	ts := tmuxtest.New(t)
	hungAfter := 500 * time.Millisecond
	sup := newSup(t, ts, Config{Restart: death.RestartPolicy{HungAfter: hungAfter, BusyHungAfter: time.Minute}})
	rec := record(sup)
	srv := mustServer(t, sup)
	pid := srv.Health().PID
	mustDo(t, srv, "new-session", "-d", "-s", "busy", "exec cat")
	for range 7 {
		mustDo(t, srv, "new-window", "-d", "-t", "busy", "exec cat")
	}
	pl := watchProbes(srv)

	busy := func() bool { _, v := pl.get(); return v[death.VerdictBusy] > 0 }
	died := func() bool { return rec.count(isType(EventServerDied)) > 0 }
	for n := 1 << 12; !busy() && !died(); n *= 2 {
		if n > 1<<32 {
			t.Fatal("the server was never silent for HungAfter while using CPU")
		}
		if _, err := ts.TmuxWithin(time.Minute, heavyCommands(n)...); err != nil {
			msg := err.Error()
			t.Fatalf("%d expansions: %s", n, msg[max(0, len(msg)-200):])
		}
		// Let the probe that waited out the stint be answered.
		srv.do(testCtx(t), "display-message", "-p", "x") //nolint:errcheck // a death is reported below
	}

	_, verdicts := pl.get()
	if verdicts[death.VerdictHung] != 0 {
		t.Errorf("verdicts = %v, want none hung: the server was busy", verdicts)
	}
	if n := rec.count(isType(EventServerDied)); n != 0 {
		t.Errorf("server_died events = %d, want none", n)
	}
	if h := srv.Health(); h.State != StateUp || h.PID != pid {
		t.Errorf("health = %+v, want the same server (PID %d) up", h, pid)
	}
	if out := strings.TrimSpace(mustDo(t, srv, "display-message", "-p", "#{pid}")); out == "" {
		t.Error("the server does not answer after the stints")
	}
}

// heavyCommands returns display-message commands, for one tmux client,
// that make the server expand about n formats (a power of two, at least
// 4096) and print nothing, in a session of 8 windows named busy: window
// loops nested d deep, c times, with n = 8^d * c and c at most 64 (a
// client's command line is bounded).
func heavyCommands(n int) []string {
	d, per := 4, 8*8*8*8
	for n/per > 64 {
		d, per = d+1, per*8
	}
	format := "#{?#{==:a,b},x,}"
	for range d {
		format = "#{W:" + format + "}"
	}
	var args []string
	for i := range max(1, n/per) {
		if i > 0 {
			args = append(args, ";")
		}
		args = append(args, "display-message", "-t", "busy", "-p", format)
	}
	return args
}
