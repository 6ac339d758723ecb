package supervisor

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
)

// TestProbeVerdicts plays sequences of probes to the hang detector: a
// server is hung when it has answered nothing for HungAfter and used no
// CPU meanwhile (or used it near its fd limit, where spinning is the
// fault), or when it has answered nothing for BusyHungAfter whatever it
// used.
func TestProbeVerdicts(t *testing.T) {
	type step struct {
		at       time.Duration // since t0
		timedOut bool
		answered time.Duration // AnsweredAt since t0; -1: zero (unknown)
		cpu      time.Duration
		work     bool // CPUIsWork
		want     verdict
	}
	const none = -1
	tests := []struct {
		name  string
		steps []step
	}{
		{"an answer ends the silence", []step{
			{0, true, none, 0, true, verdictSlow},
			{5 * time.Second, true, none, 0, true, verdictSlow},
			{6 * time.Second, false, none, 0, true, verdictUp},
			{7 * time.Second, true, none, 0, true, verdictSlow},
			{16 * time.Second, true, none, 0, true, verdictSlow},
			{17 * time.Second, true, none, 0, true, verdictHung},
		}},
		{"stopped: no answer, no CPU", []step{
			{0, true, none, time.Second, true, verdictSlow},
			{9 * time.Second, true, none, time.Second, true, verdictSlow},
			{10 * time.Second, true, none, time.Second, true, verdictHung},
		}},
		{"answers to queued commands keep it slow, not hung", []step{
			{0, true, none, 0, true, verdictSlow},
			{8 * time.Second, true, 7 * time.Second, 0, true, verdictSlow},
			{16 * time.Second, true, 15 * time.Second, 0, true, verdictSlow},
			{24 * time.Second, true, 15 * time.Second, 0, true, verdictSlow},
			{25 * time.Second, true, 15 * time.Second, 0, true, verdictHung}, // nothing since 15 s
		}},
		{"an answer from before the silence does not count", []step{
			{0, true, none, 0, true, verdictSlow},
			{10 * time.Second, true, -time.Second, 0, true, verdictHung},
		}},
		{"busy: silent but using CPU, until BusyHungAfter", []step{
			{0, true, none, 0, true, verdictSlow},
			{5 * time.Second, true, none, 50 * time.Millisecond, true, verdictSlow},
			{10 * time.Second, true, none, 60 * time.Millisecond, true, verdictBusy},
			{30 * time.Second, true, none, 2 * time.Second, true, verdictBusy},
			{59 * time.Second, true, none, 3 * time.Second, true, verdictBusy},
			{60 * time.Second, true, none, 4 * time.Second, true, verdictHung},
		}},
		{"busy, then stopped: hung HungAfter after the CPU stood still", []step{
			{0, true, none, 0, true, verdictSlow},
			{10 * time.Second, true, none, time.Second, true, verdictBusy},
			{19 * time.Second, true, none, time.Second, true, verdictBusy},
			{20 * time.Second, true, none, time.Second, true, verdictHung},
		}},
		{"near the fd limit CPU is spinning, not work", []step{
			{0, true, none, 0, false, verdictSlow},
			{5 * time.Second, true, none, time.Second, false, verdictSlow},
			{10 * time.Second, true, none, 2 * time.Second, false, verdictHung},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newRestartTracker(RestartPolicy{HungAfter: 10 * time.Second}, 0)
			for _, s := range tt.steps {
				l := liveness{TimedOut: s.timedOut, CPU: s.cpu, CPUIsWork: s.work}
				if s.answered != none {
					l.AnsweredAt = t0.Add(s.answered)
				}
				if got := tr.probe(t0.Add(s.at), l); got != s.want {
					t.Errorf("probe(+%v, %+v) = %v, want %v", s.at, l, got, s.want)
				}
			}
		})
	}
}

// probeLog records the live server's liveness probes and verdicts.
type probeLog struct {
	mu       sync.Mutex
	verdicts map[verdict]int
	streak   time.Time     // first timed-out probe of the current run of them
	longest  time.Duration // longest run of timed-out probes, first to last
}

// watchProbes installs a probeLog on srv.
func watchProbes(srv *Server) *probeLog {
	pl := &probeLog{verdicts: map[verdict]int{}}
	srv.mu.Lock()
	srv.testProbeHook = func(l liveness, v verdict) {
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

func (pl *probeLog) get() (longest time.Duration, verdicts map[verdict]int) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	verdicts = map[verdict]int{}
	for k, v := range pl.verdicts {
		verdicts[k] = v
	}
	return pl.longest, verdicts
}

// TestQueuedServerNotHung: tmux-mcp's command connection carries a queue
// of slow commands (run-shell without -b is answered at once, but holds
// the client's queue until the shell ends), so every liveness probe
// behind them times out, for longer
// than HungAfter, while answers keep arriving. The server is working, not
// hung: it must not be terminated. (Before the fix, probes that timed out
// for HungAfter in a row were enough.) CPU is ruled out as the reason it
// is spared: BusyHungAfter is HungAfter.
func TestQueuedServerNotHung(t *testing.T) {
	ts := tmuxtest.New(t)
	hungAfter := time.Second
	sup := newSup(t, ts, Config{Restart: RestartPolicy{HungAfter: hungAfter, BusyHungAfter: hungAfter}})
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
	// Six shells of 300 ms each in the queue at any time: a probe waits
	// about 1.8 s behind them, past its 1 s timeout, and an answer (the
	// next run-shell's) arrives every 300 ms.
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				ctrl.Run(rctx, "run-shell", "sleep 0.3") //nolint:errcheck // only the queue matters
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
	if verdicts[verdictHung] != 0 || verdicts[verdictBusy] != 0 {
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
	sup := newSup(t, ts, Config{Restart: RestartPolicy{HungAfter: hungAfter, BusyHungAfter: time.Minute}})
	rec := record(sup)
	srv := mustServer(t, sup)
	pid := srv.Health().PID
	mustDo(t, srv, "new-session", "-d", "-s", "busy", "exec cat")
	for range 7 {
		mustDo(t, srv, "new-window", "-d", "-t", "busy", "exec cat")
	}
	pl := watchProbes(srv)

	busy := func() bool { _, v := pl.get(); return v[verdictBusy] > 0 }
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
		srv.Do(testCtx(t), "display-message", "-p", "x") //nolint:errcheck // a death is reported below
	}

	_, verdicts := pl.get()
	if verdicts[verdictHung] != 0 {
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
