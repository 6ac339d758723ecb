package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"

	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// restorer is a Restorer for tests: it records its calls and recreates one
// session, as the journal would.
type restorer struct {
	mu    sync.Mutex
	calls int
}

func (r *restorer) Restore(ctx context.Context, srv *Server) error {
	_, err := srv.do(ctx, "new-session", "-d", "-s", "restored")
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
	return err
}

func (r *restorer) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

func TestRestoreHookRunsAfterRestart(t *testing.T) {
	ts := tmuxtest.New(t)
	rs := &restorer{}
	sup := newSup(t, ts, Config{Restorer: rs})
	rec := record(sup)
	srv := mustServer(t, sup)
	// The server the first call started may replace one that died before
	// this process ran: the hook runs.
	first := rec.wait(t, 10*time.Second, "first restore", isType(EventRestored))
	if got := rs.count(); got != 1 {
		t.Fatalf("restore calls after the first start = %d, want 1", got)
	}
	syscall.Kill(srv.Health().PID, syscall.SIGKILL)
	e := rec.wait(t, 10*time.Second, "restored", func(e Event) bool { return e.Type == EventRestored && e.PID != first.PID })
	if e.Detail != "" {
		t.Fatalf("restore failed: %s", e.Detail)
	}
	if got := rs.count(); got != 2 {
		t.Errorf("restore calls = %d, want 2", got)
	}
	sessions, err := srv.ListSessions(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 1 || sessions[0].Name != "restored" {
		t.Errorf("sessions after restore = %+v, want the restored one", sessions)
	}
}

func TestHungServerTerminatedAndRestarted(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{CommandTimeout: 300 * time.Millisecond,
		Restart: death.RestartPolicy{HungAfter: 500 * time.Millisecond}})
	rec := record(sup)
	srv := mustServer(t, sup)
	pid := srv.Health().PID
	syscall.Kill(pid, syscall.SIGSTOP)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	died := rec.wait(t, 10*time.Second, "server_died", isType(EventServerDied))
	if got, want := died.Cause, death.CauseHung; got != want {
		t.Errorf("cause = %q, want %q (%s)", got, want, died.Detail)
	}
	rec.wait(t, 10*time.Second, "restarted", isType(EventRestarted))
	if tmuxtest.Alive(pid) {
		t.Errorf("hung server %d still alive after recovery", pid)
	}
	if got := srv.Health().PID; got == pid || got <= 0 {
		t.Errorf("pid after restart = %d, want a new server", got)
	}
	mustDo(t, srv, "list-sessions")
}

func TestFDLivelockTerminatedAndRestarted(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{FDLimit: 24, CommandTimeout: 300 * time.Millisecond,
		Restart: death.RestartPolicy{HungAfter: 500 * time.Millisecond}})
	rec := record(sup)
	srv := mustServer(t, sup)
	pid := srv.Health().PID
	// Behind the supervisor's back (so its resource gate cannot refuse),
	// open windows until the server holds every fd its limit allows: from
	// then on it cannot accept a client, and tmux spins on the pending
	// connection instead of failing it. The client that finds it so is
	// killed at its deadline; how slow a healthy server is on a busy
	// machine does not matter, only the server's own fd count.
	// reached records that the count was seen at the limit: it falls again
	// when the hanging client is killed and the server lets its fds go.
	reached := false
	atLimit := func() bool {
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		reached = reached || err == nil && len(fds) >= 24
		return reached
	}
	// The supervisor may end the livelocked server before this loop sees
	// its fd count at the limit (on a loaded machine the read comes late):
	// a server that is gone stops the loop too, and the cause below says
	// whether it was the fd livelock.
	for i := 0; i < 30 && !atLimit() && tmuxtest.Alive(pid); i++ {
		ts.TmuxWithin(2*time.Second, "new-window", "-d") //nolint:errcheck // the last one hangs
	}
	if v, err := tmux.ParseVersion(ts.MustTmux("-V")); err == nil && !v.Capabilities().FDLimitLivelock {
		// 3.6 and later keep answering at (or one short of) their limit:
		// new windows fail there, the server is alive and well, and must
		// be left alone.
		mustDo(t, srv, "list-sessions")
		if h := srv.Health(); h.State != StateUp || h.PID != pid {
			t.Errorf("health = %+v, want the same server up", h)
		}
		if n := rec.count(isType(EventServerDied)); n != 0 {
			t.Errorf("server_died events = %d, want none for a server that answers", n)
		}
		return
	}
	if tmuxtest.Alive(pid) && !reached {
		t.Fatal("server never reached its fd limit of 24")
	}
	died := rec.wait(t, 15*time.Second, "server_died", isType(EventServerDied))
	if got, want := died.Cause, death.CauseFDLivelock; got != want {
		t.Errorf("cause = %q, want %q (%s)", got, want, died.Detail)
	}
	rec.wait(t, 15*time.Second, "restarted", isType(EventRestarted))
	if tmuxtest.Alive(pid) {
		t.Errorf("livelocked server %d still alive after recovery", pid)
	}
	mustDo(t, srv, "list-sessions")
}

func TestSpansCarryNoKeystrokes(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{})
	srv := mustServer(t, sup)
	const secret = "hunter2-s3cret"
	pane := tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "s", "exec cat"))
	mustDo(t, srv, "send-keys", "-t", string(pane), "-l", secret)
	tmuxtest.WaitFor(t, 5*time.Second, "echo of the keys", func() bool {
		c, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane})
		return err == nil && strings.Contains(string(c.Content), secret)
	})
	tmuxtest.WaitFor(t, 5*time.Second, "a cached capture", func() bool {
		c, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane})
		return err == nil && c.Cached
	})
	srv.do(testCtx(t), "kill-pane", "-t", "%999") //nolint:errcheck // the failure is the point

	var names []string
	var sawHit, sawErr, sawSend bool
	for _, s := range exp.GetSpans() {
		names = append(names, s.Name)
		attrs := map[attribute.Key]attribute.Value{}
		for _, kv := range s.Attributes {
			attrs[kv.Key] = kv.Value
			if strings.Contains(kv.Value.String(), secret) {
				t.Errorf("span %q attribute %s carries the keystrokes", s.Name, kv.Key)
			}
		}
		if strings.Contains(s.Name, secret) {
			t.Errorf("span name %q carries the keystrokes", s.Name)
		}
		switch {
		case s.Name == "tmux send-keys":
			sawSend = attrs["tmux.transport"].AsString() == "control" && attrs["tmux.command"].AsString() == "send-keys"
		case s.Name == "tmux capture-pane" && attrs["tmux.cache_hit"].AsBool():
			sawHit = true
		case s.Name == "tmux kill-pane":
			sawErr = attrs["tmux.error_class"].AsString() == "pane_not_found"
		}
	}
	if !sawSend || !sawHit || !sawErr {
		slices.Sort(names)
		t.Errorf("spans: send-keys with transport %v, cache hit %v, error class %v; names %v", sawSend, sawHit, sawErr, slices.Compact(names))
	}
}

// TestTwoSupervisorsShareOneServer is two tmux-mcp processes (one per agent)
// on the same socket: after kill -9 both recover, onto one new server, and
// the restore hook runs once.
func TestTwoSupervisorsShareOneServer(t *testing.T) {
	ts := tmuxtest.New(t)
	rs := &restorer{}
	a := newSup(t, ts, Config{Restorer: rs})
	b := newSup(t, ts, Config{Restorer: rs})
	recA, recB := record(a), record(b)
	srvA, srvB := mustServer(t, a), mustServer(t, b)
	// a started the server and restored it (the hook decides whether
	// there is anything to restore; it runs after the start, and b may
	// adopt the server before it has); b adopted it and did not.
	tmuxtest.WaitFor(t, 10*time.Second, "the first start's restore", func() bool { return rs.count() >= 1 })
	before := rs.count()
	if before != 1 {
		t.Fatalf("restore calls after the first start = %d, want 1", before)
	}
	pid := srvA.Health().PID
	if got := srvB.Health().PID; got != pid {
		t.Fatalf("second supervisor sees pid %d, want the adopted %d", got, pid)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	recA.wait(t, 10*time.Second, "restarted (a)", isType(EventRestarted))
	recB.wait(t, 10*time.Second, "restarted (b)", isType(EventRestarted))
	pa, pb := srvA.Health().PID, srvB.Health().PID
	if pa != pb || pa == pid || !tmuxtest.Alive(pa) {
		t.Errorf("pids after recovery: a=%d b=%d (old %d), want one new live server", pa, pb, pid)
	}
	if got := mustDo(t, srvA, "display-message", "-p", "#{pid}"); got != fmt.Sprint(pa) {
		t.Errorf("socket answers with pid %s, want %d", got, pa)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the restore hook", func() bool { return rs.count() >= before+1 })
	sessions, err := srvB.ListSessions(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.count() - before; got != 1 || len(sessions) != 1 {
		t.Errorf("restore calls = %d, sessions = %d, want 1 and 1", got, len(sessions))
	}
}

// TestSharedCaptureKeepsEachCallersDeadline: callers sharing one capture
// each stop waiting at their own deadline, and one giving up does not fail
// the others.
func TestSharedCaptureKeepsEachCallersDeadline(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{ReadRate: 1000, ReadBurst: 1000})
	srv := mustServer(t, sup)
	pane := quietPane(t, srv, "d")
	pid := srv.Health().PID
	syscall.Kill(pid, syscall.SIGSTOP)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	srv.fresh.Changed()
	patient := make(chan error, 1)
	go func() {
		_, err := srv.Capture(context.Background(), CaptureRequest{Pane: pane})
		patient <- err
	}()
	tmuxtest.WaitFor(t, 5*time.Second, "the patient capture in flight", func() bool { return srv.capturing.Load() == 1 })
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := srv.Capture(short, CaptureRequest{Pane: pane})
	if !errors.Is(err, tmux.ErrTimeout) {
		t.Errorf("short caller: got %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("short caller returned after %v, want about 200ms", d)
	}
	syscall.Kill(pid, syscall.SIGCONT)
	if err := <-patient; err != nil {
		t.Errorf("patient caller: %v, want the capture", err)
	}
}

// TestSocketTakenOverIsTakenBack: the socket path is taken by a second
// server (what any server-starting command does once the file is gone;
// here a second server's socket is renamed onto the path, so that the
// supervisor cannot give the path back first and have the "intruder" land
// in the original server); the supervisor notices that the server behind
// the socket changed and gives the path back to the one holding the
// sessions.
func TestSocketTakenOverIsTakenBack(t *testing.T) {
	ts := tmuxtest.New(t)
	orig := ts.Start("keep")
	sup := newSup(t, ts, Config{})
	rec := record(sup)
	srv := mustServer(t, sup)
	other := tmuxtest.New(t)
	intruder := other.Start("intruder")
	if err := os.Rename(other.Socket, ts.Socket); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, 5*time.Second, "socket_recreated", isType(EventSocketRecreated))
	tmuxtest.WaitFor(t, 10*time.Second, "the original server to answer on the socket path", func() bool {
		out, err := ts.Tmux("display-message", "-p", "#{pid}") // a new client, through the path
		return err == nil && out == fmt.Sprint(orig)
	})
	var sessions []tmux.Session
	tmuxtest.WaitFor(t, 10*time.Second, "the supervisor to answer", func() bool {
		var err error
		sessions, err = srv.ListSessions(testCtx(t))
		if err != nil && !errors.Is(err, ErrRestarting) {
			t.Fatalf("list sessions: %v, want an answer or ErrRestarting", err)
		}
		return err == nil
	})
	if len(sessions) != 1 || sessions[0].Name != "keep" {
		t.Errorf("sessions = %+v; want the original keep", sessions)
	}
	if got := mustDo(t, srv, "display-message", "-p", "#{pid}"); got != fmt.Sprint(orig) {
		t.Errorf("supervised server pid %s, want the original %d", got, orig)
	}
	if !tmuxtest.Alive(intruder) {
		t.Errorf("the intruder %d was ended; only servers tmux-mcp started may be", intruder)
	}
}

// TestFreshSupervisorFindsServerWithDeletedSocket: tmux-mcp starts after a
// /tmp cleaner removed the socket of a live server. It must give that
// server its socket back, not start a second one that orphans it.
func TestFreshSupervisorFindsServerWithDeletedSocket(t *testing.T) {
	ts := tmuxtest.New(t)
	orig := ts.Start("keep")
	if err := os.Remove(ts.Socket); err != nil {
		t.Fatal(err)
	}
	sup := newSup(t, ts, Config{})
	rec := record(sup)
	srv := mustServer(t, sup)
	if got := srv.Health().PID; got != orig {
		t.Errorf("adopted pid %d, want the original %d", got, orig)
	}
	if n := rec.count(isType(EventServerStarted)); n != 0 {
		t.Errorf("servers started = %d, want 0", n)
	}
	sessions, err := srv.ListSessions(testCtx(t))
	if err != nil || len(sessions) != 1 || sessions[0].Name != "keep" {
		t.Errorf("sessions = %+v, %v; want keep", sessions, err)
	}
}

// TestGaveUpIsNotForever: once the restart policy gave up, a server that answers on
// the socket again is adopted at the next call (after the re-probe
// interval), and never started by tmux-mcp.
func TestGaveUpIsNotForever(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{NoStart: true})
	rec := record(sup)
	ts.Start("first")
	srv := mustServer(t, sup)
	syscall.Kill(srv.Health().PID, syscall.SIGKILL)
	rec.wait(t, 5*time.Second, "server_died", isType(EventServerDied))
	// NoStart: every restart attempt fails, and recovery gives up.
	tmuxtest.WaitFor(t, 20*time.Second, "recovery to give up", func() bool {
		_, err := srv.ListSessions(testCtx(t))
		return errors.Is(err, ErrServerDown)
	})
	pid := ts.Start("second")
	srv.mu.Lock()
	srv.lastReprobe = time.Time{} // do not wait out the interval in a test
	srv.mu.Unlock()
	sessions, err := srv.ListSessions(testCtx(t))
	if err != nil || len(sessions) != 1 || sessions[0].Name != "second" {
		t.Fatalf("after a server came back: %+v, %v; want it adopted", sessions, err)
	}
	if got := srv.Health().PID; got != pid {
		t.Errorf("pid = %d, want %d", got, pid)
	}
}
