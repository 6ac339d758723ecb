package supervisor

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// pausedRestorer restores three sessions for real, and when armed stops
// after the first until released: a restore slowed down on purpose, with
// the tree half restored while it waits.
type pausedRestorer struct {
	mu      sync.Mutex
	half    chan struct{} // receives once the first session exists; nil: no pause
	release chan struct{} // closed by the test to let the restore go on
	panics  bool          // panic after the first session instead of pausing
	calls   int
}

// arm makes the next restores pause after their first session.
func (r *pausedRestorer) arm() (half <-chan struct{}, release chan<- struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.half, r.release = make(chan struct{}, 1), make(chan struct{})
	return r.half, r.release
}

func (r *pausedRestorer) Restore(ctx context.Context, srv *Server) error {
	r.mu.Lock()
	half, release, panics := r.half, r.release, r.panics
	r.calls++
	r.mu.Unlock()
	MarkRestoring(ctx)
	if _, err := srv.do(ctx, "new-session", "-d", "-s", "r1"); err != nil {
		return err
	}
	if panics {
		panic("restorer failed on purpose")
	}
	if half != nil {
		half <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// The Restorer's own calls pass the gate it holds closed.
	for _, name := range []string{"r2", "r3"} {
		if _, err := srv.do(ctx, "new-session", "-d", "-s", name); err != nil {
			return err
		}
	}
	return nil
}

func sessionNames(t *testing.T, ss []tmux.Session) []string {
	t.Helper()
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

func await[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(15 * time.Second):
		t.Fatalf("no %s within 15s", what)
		panic("unreachable")
	}
}

type listing struct {
	names []string
	err   error
}

// listAsync lists sessions in the background; the result arrives on the
// returned channel.
func listAsync(t *testing.T, ctx context.Context, srv *Server) <-chan listing {
	c := make(chan listing, 1)
	go func() {
		ss, err := srv.ListSessions(ctx)
		var names []string
		for _, s := range ss {
			names = append(names, s.Name)
		}
		slices.Sort(names)
		c <- listing{names, err}
	}()
	return c
}

var restoredTree = []string{"r1", "r2", "r3"}

// actAsync acts on the last session the restore creates (a command that
// must wait for the restore: it fails if r3 does not exist yet), then
// lists the sessions, in the background.
func actAsync(t *testing.T, ctx context.Context, srv *Server) <-chan listing {
	c := make(chan listing, 1)
	go func() {
		if _, err := srv.do(ctx, "has-session", "-t", "=r3"); err != nil {
			c <- listing{err: err}
			return
		}
		c <- <-listAsync(t, ctx, srv)
	}()
	return c
}

// TestCallDuringRestoreSeesWholeTree: after kill -9, a call that acts on
// the tree while the restore has restored one session of three waits, and
// then finds all three; a listing is answered at once with what exists;
// the restore's own calls are not held up by the gate.
func TestCallDuringRestoreSeesWholeTree(t *testing.T) {
	ts := tmuxtest.New(t)
	rs := &pausedRestorer{}
	sup := newSup(t, ts, Config{Restorer: rs})
	rec := record(sup)
	srv := mustServer(t, sup)
	first := rec.wait(t, 10*time.Second, "first restore", isType(EventRestored))

	half, release := rs.arm()
	syscall.Kill(first.PID, syscall.SIGKILL)
	await(t, half, "restore halfway")
	if h := srv.Health(); !h.Restoring || h.State != StateUp {
		t.Errorf("health during the restore: state %s, restoring %v; want up and restoring", h.State, h.Restoring)
	}
	if l := <-listAsync(t, testCtx(t), srv); l.err != nil || !slices.Equal(l.names, []string{"r1"}) {
		t.Errorf("listing during the restore = %v (%v), want [r1] at once", l.names, l.err)
	}
	got := actAsync(t, testCtx(t), srv)
	tmuxtest.WaitFor(t, 10*time.Second, "the call to wait at the gate", func() bool { return srv.restoreWaiters.Load() == 1 })
	select {
	case l := <-got:
		t.Fatalf("call returned during the restore: %v %v", l.names, l.err)
	default:
	}
	close(release)
	l := await(t, got, "the call's answer")
	if l.err != nil || !slices.Equal(l.names, restoredTree) {
		t.Errorf("sessions seen by the call = %v (%v), want %v", l.names, l.err, restoredTree)
	}
	e := rec.wait(t, 10*time.Second, "second restore", func(e Event) bool { return e.Type == EventRestored && e.PID != first.PID })
	if e.Detail != "" {
		t.Errorf("restore failed: %s", e.Detail)
	}
	if h := srv.Health(); h.Restoring {
		t.Errorf("health after the restore still says restoring")
	}
}

// TestLazyStartRestores: a server that died while no tmux-mcp watched it
// is restored when the next call starts a new one, under the same gate:
// the call that started it and one that came after both see the whole
// tree.
func TestLazyStartRestores(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("lost")
	syscall.Kill(pid, syscall.SIGKILL)
	tmuxtest.WaitFor(t, 5*time.Second, "the old server to die", func() bool { return !tmuxtest.Alive(pid) })

	rs := &pausedRestorer{}
	half, release := rs.arm()
	sup := newSup(t, ts, Config{Restorer: rs})
	ctx := testCtx(t)
	starter := make(chan listing, 1)
	go func() {
		srv, err := sup.Default(ctx)
		if err != nil {
			starter <- listing{err: err}
			return
		}
		starter <- <-actAsync(t, ctx, srv)
	}()
	select {
	case <-half:
	case l := <-starter:
		// The call that was to start the server ended first: why.
		t.Fatalf("the starting call ended before the restore began: %v %v", l.names, l.err)
	case <-time.After(15 * time.Second):
		t.Fatalf("no restore halfway within 15s; servers %v", sup.Servers())
	}
	srv := sup.Servers()[0]
	later := actAsync(t, ctx, srv)
	tmuxtest.WaitFor(t, 10*time.Second, "both calls to wait at the gate", func() bool { return srv.restoreWaiters.Load() == 2 })
	close(release)
	for _, c := range []<-chan listing{starter, later} {
		l := await(t, c, "a call's answer")
		if l.err != nil || !slices.Equal(l.names, restoredTree) {
			t.Errorf("sessions seen = %v (%v), want %v", l.names, l.err, restoredTree)
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.calls != 1 {
		t.Errorf("restore calls = %d, want 1", rs.calls)
	}
}

// TestRestoreWaitEndsWithCallersDeadline: a caller whose deadline passes
// during a restore fails with ErrRestoring (also ErrRestarting), the
// restore goes on, and Close ends a restore that is still waiting.
func TestRestoreWaitEndsWithCallersDeadline(t *testing.T) {
	ts := tmuxtest.New(t)
	rs := &pausedRestorer{}
	half, _ := rs.arm()
	sup := newSup(t, ts, Config{Restorer: rs})
	go sup.Default(context.Background()) //nolint:errcheck // the test waits on the restorer instead
	await(t, half, "restore halfway")
	srv := sup.Servers()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := srv.do(ctx, "has-session", "-t", "=r1")
	if !errors.Is(err, ErrRestoring) || !errors.Is(err, ErrRestarting) {
		t.Fatalf("got %v, want ErrRestoring matching ErrRestarting", err)
	}
	var ra interface{ RetryDelay() time.Duration }
	if !errors.As(err, &ra) || ra.RetryDelay() <= 0 {
		t.Errorf("error %v carries no retry delay", err)
	}
	if !srv.Health().Restoring {
		t.Errorf("restore ended with the caller's deadline; want it to go on")
	}
	// Close cancels the restore (it returns ctx.Err()) and waits for it.
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	if srv.Health().Restoring {
		t.Errorf("restore still running after Close")
	}
}

// TestRestorerPanicOpensGate: a Restorer that panics is reported as a
// failed restore and the gate opens.
func TestRestorerPanicOpensGate(t *testing.T) {
	ts := tmuxtest.New(t)
	rs := &pausedRestorer{panics: true}
	sup := newSup(t, ts, Config{Restorer: rs})
	rec := record(sup)
	srv := mustServer(t, sup)
	e := rec.wait(t, 10*time.Second, "restored", isType(EventRestored))
	if want := "restorer panicked: restorer failed on purpose"; !strings.Contains(e.Detail, want) {
		t.Errorf("restored detail = %q, want it to contain %q", e.Detail, want)
	}
	ss, err := srv.ListSessions(testCtx(t))
	if err != nil || !slices.Equal(sessionNames(t, ss), []string{"r1"}) {
		t.Errorf("sessions after a failed restore = %v (%v), want [r1]", sessionNames(t, ss), err)
	}
	if srv.Health().Restoring {
		t.Errorf("gate still closed after the restorer panicked")
	}
}

// idleRestorer finds nothing to restore: it holds the gate until released
// and never calls MarkRestoring.
type idleRestorer struct {
	entered chan struct{}
	release chan struct{}
}

func (r idleRestorer) Restore(ctx context.Context, srv *Server) error {
	r.entered <- struct{}{}
	select {
	case <-r.release:
	case <-ctx.Done():
	}
	return nil
}

// TestRestoreWithNothingToRebuildIsNotAnnounced: the gate closes while a
// Restorer decides, but until it calls MarkRestoring nothing says that
// sessions are being restored (a brand-new server's first call must not
// read that it was restarted); MarkRestoring outside a Restorer's calls
// does nothing.
func TestRestoreWithNothingToRebuildIsNotAnnounced(t *testing.T) {
	ts := tmuxtest.New(t)
	rs := idleRestorer{entered: make(chan struct{}, 1), release: make(chan struct{})}
	sup := newSup(t, ts, Config{Restorer: rs})
	go sup.Default(context.Background()) //nolint:errcheck // the test waits on the restorer instead
	await(t, rs.entered, "the restorer")
	srv := sup.Servers()[0]
	MarkRestoring(testCtx(t))
	if got, want := srv.RestoreState(), RestoreChecking; got != want || srv.Health().Restoring {
		t.Errorf("while the restorer decides: restore state %v, health restoring %v; want %v, false",
			got, srv.Health().Restoring, want)
	}
	close(rs.release)
	tmuxtest.WaitFor(t, 10*time.Second, "the gate to open", func() bool { return srv.RestoreState() == RestoreNone })
}

// TestStartPastADeadServersSocket: the socket takes the connection but no
// server answers it (a server killed while a child it was forking still
// held its listening socket; here a listener that hangs up on the first
// connection): the call starts a server instead of failing.
func TestStartPastADeadServersSocket(t *testing.T) {
	ts := tmuxtest.New(t)
	ln, err := net.Listen("unix", ts.Socket)
	if err != nil {
		t.Fatal(err)
	}
	// Closed, the listener leaves its file, as a dead server does: Go's
	// unlink on Close raced the server the call starts, and took away the
	// socket it had bound (tmux unlinks a stale file before it binds).
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	hungUp := make(chan struct{})
	go func() {
		defer close(hungUp)
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
		ln.Close()
	}()
	sup := newSup(t, ts, Config{})
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatalf("Default: %v, want a server started", err)
	}
	await(t, hungUp, "the first connection to be hung up on")
	if _, err := srv.do(testCtx(t), "has-session", "-t", "="+tmux.HiddenSession); err != nil && !errors.Is(err, tmux.ErrSessionNotFound) {
		t.Fatalf("the started server does not answer: %v", err)
	}
	if h := srv.Health(); h.PID == 0 || !h.Owned {
		t.Errorf("health %+v, want a server this supervisor started", h)
	}
}
