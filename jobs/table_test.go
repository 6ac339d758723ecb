package jobs

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

var sockA, sockB = tmux.Socket{Name: "a"}, tmux.Socket{Name: "b"}

// memStore is a Store in memory.
type memStore struct {
	mu   sync.Mutex
	recs []jobrecord.Record
}

func (m *memStore) PutJob(r jobrecord.Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, r)
}

func (m *memStore) Jobs() ([]jobrecord.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.recs), nil
}

// last returns the last record put of id.
func (m *memStore) last(id string) (jobrecord.Record, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range slices.Backward(m.recs) {
		if r.ID == id {
			return r, true
		}
	}
	return jobrecord.Record{}, false
}

// events is an Events the test sends events through.
type events struct {
	mu sync.Mutex
	fn func(supervisor.Event)
}

func (e *events) Subscribe(fn func(supervisor.Event)) func() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fn = fn
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.fn = nil
	}
}

func (e *events) send(ev supervisor.Event) {
	e.mu.Lock()
	fn := e.fn
	e.mu.Unlock()
	if fn != nil {
		fn(ev)
	}
}

// idleRun is a Run whose line never ends and whose pane never changes.
type idleRun struct{}

func (idleRun) Await(ctx context.Context, _ time.Duration) (Result, error) {
	<-ctx.Done()
	return Result{}, ctx.Err()
}
func (idleRun) Result(context.Context) (Result, error)    { return Result{Output: []string{}}, nil }
func (idleRun) ClearEnd(context.Context)                  {}
func (idleRun) Pane(context.Context) (tmux.Pane, error)   { return tmux.Pane{}, nil }
func (idleRun) Watch(context.Context, time.Duration) Feed { return idleFeed{} }

type idleFeed struct{}

func (idleFeed) Changes() <-chan struct{} { return nil }
func (idleFeed) Reopen(context.Context)   {}
func (idleFeed) Close()                   {}

// TestReserveRefuses: a pane with a job, pending or running, is busy; a
// server runs at most MaxPerServer jobs; a closed table takes none.
func TestReserveRefuses(t *testing.T) {
	tb := New(Config{})
	j, err := tb.Reserve(sockA, "%1")
	if err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	if _, err := tb.Reserve(sockA, "%1"); !errors.As(err, &busy) || busy.Pane != "%1" || busy.Job != j.ID() {
		t.Errorf("Reserve of a busy pane: %v, want a BusyError naming %s", err, j.ID())
	}
	if err := tb.CheckFree(sockA, "%1"); !errors.As(err, &busy) {
		t.Errorf("CheckFree of a busy pane: %v, want a BusyError", err)
	}
	if err := tb.CheckFree(sockB, "%1"); err != nil {
		t.Errorf("CheckFree of the same pane ID on another server: %v, want nil", err)
	}
	if len(tb.All()) != 0 {
		t.Errorf("All() lists a reserved job: %v", tb.All())
	}
	if _, err := tb.Lookup(t.Context(), j.ID()); !errors.Is(err, ErrNotFound) {
		t.Errorf("Lookup of a reserved job: %v, want ErrNotFound", err)
	}
	tb.Drop(j)
	if err := tb.CheckFree(sockA, "%1"); err != nil {
		t.Errorf("CheckFree after Drop: %v, want nil", err)
	}
	for i := range MaxPerServer {
		if _, err := tb.Reserve(sockA, tmux.PaneID("%"+string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	var limit *LimitError
	if _, err := tb.Reserve(sockA, "%z"); !errors.As(err, &limit) || limit.Running != MaxPerServer {
		t.Errorf("Reserve beyond the bound: %v, want a LimitError of %d", err, MaxPerServer)
	}
	if _, err := tb.Reserve(sockB, "%z"); err != nil {
		t.Errorf("Reserve on another server: %v", err)
	}
	tb.Close()
	if _, err := tb.Reserve(sockB, "%y"); !errors.Is(err, supervisor.ErrClosed) {
		t.Errorf("Reserve after Close: %v, want ErrClosed", err)
	}
}

func TestLookupRefuses(t *testing.T) {
	tb := New(Config{})
	defer tb.Close()
	for id, want := range map[string]error{"#{pane_id}": ErrInvalidID, "J0123456789": ErrInvalidID, "j0000000000": ErrNotFound} {
		if _, err := tb.Lookup(t.Context(), id); !errors.Is(err, want) {
			t.Errorf("Lookup(%q) = %v, want %v", id, err, want)
		}
	}
}

// TestOpenTakesOverEndedJobs: Open lists the ended jobs in the store and
// leaves a running one whose tmux-mcp is alive to it.
func TestOpenTakesOverEndedJobs(t *testing.T) {
	status := 3
	ended := jobrecord.Record{ID: "j0000000001", Socket: sockA, Pane: "%1", State: jobrecord.Exited, ExitStatus: &status,
		Started: time.Now().Add(-time.Minute), Ended: time.Now(), Proc: 1 << 30, Tail: []string{"out"}}
	other := jobrecord.Record{ID: "j0000000002", Socket: sockA, Pane: "%2", State: jobrecord.Running, Started: time.Now(), Proc: os.Getppid()}
	store := &memStore{recs: []jobrecord.Record{ended, other}}
	tb := New(Config{Store: store})
	tb.Open()
	defer tb.Close()
	all := tb.All()
	if len(all) != 1 || all[0].ID() != ended.ID {
		t.Fatalf("All() after Open = %v, want only %s", all, ended.ID)
	}
	j, err := tb.Lookup(t.Context(), ended.ID)
	if err != nil {
		t.Fatal(err)
	}
	rec, out, err := j.Read(t.Context(), 10)
	if err != nil || j.Running() || rec.State != jobrecord.Exited || *rec.ExitStatus != 3 || !slices.Equal(out, []string{"out"}) {
		t.Errorf("Read of the ended job = %+v, %q, %v; want it exited 3 with its tail", rec, out, err)
	}
	if steps, err := j.Stop(t.Context(), time.Second, nil); len(steps) != 0 || err != nil {
		t.Errorf("Stop of an ended job = %v, %v; want no step", steps, err)
	}
	if _, err := tb.Lookup(t.Context(), other.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Lookup of a job another live tmux-mcp watches: %v, want ErrNotFound", err)
	}
}

// TestServerDiedLosesJobs: a server's death makes its running jobs lost,
// and the store and the listeners hear of it; the jobs of another server
// run on; Close leaves no goroutine behind.
func TestServerDiedLosesJobs(t *testing.T) {
	store, ev := &memStore{}, &events{}
	tb := New(Config{Store: store, Events: ev})
	tb.Open()
	heard := make(chan jobrecord.Record, 4)
	tb.OnChange(func(r jobrecord.Record) { heard <- r })
	launch := func(sock tmux.Socket, pane tmux.PaneID) *Job {
		t.Helper()
		j, err := tb.Reserve(sock, pane)
		if err != nil {
			t.Fatal(err)
		}
		tb.Launch(j, nil, idleRun{}, jobrecord.Record{Socket: sock, Pane: pane, Started: time.Now(), ServerPID: 42})
		return j
	}
	a, b := launch(sockA, "%1"), launch(sockB, "%1")
	if rec, ok := store.last(a.ID()); !ok || rec.State != jobrecord.Running || rec.ID != a.ID() || rec.Proc != os.Getpid() {
		t.Errorf("stored at launch: %+v, want it running, watched by this process", rec)
	}
	ev.send(supervisor.Event{Type: supervisor.EventServerDied, Socket: sockA, PID: 42, Cause: death.CauseKilled})
	select {
	case r := <-heard:
		if r.ID != a.ID() || r.State != jobrecord.Lost || !strings.Contains(r.Reason, "the tmux server died (killed)") {
			t.Errorf("listener heard %+v, want %s lost", r, a.ID())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no listener heard of the lost job")
	}
	if rec, _ := store.last(a.ID()); rec.State != jobrecord.Lost {
		t.Errorf("stored after the death: %+v, want lost", rec)
	}
	if a.Running() || !b.Running() {
		t.Errorf("running after the death of server a: a %v, b %v; want only b", a.Running(), b.Running())
	}
	tb.Close()
	if !b.Running() {
		t.Error("Close ended a job; jobs run on")
	}
}

// TestCallsBounded: the table holds at most MaxCalls calls, running ones
// counted: the oldest ended goes first, a call is refused when all run,
// and calls never push an ended command out.
func TestCallsBounded(t *testing.T) {
	tb := New(Config{})
	defer tb.Close()
	cmd, err := tb.Reserve(sockA, "%1")
	if err != nil {
		t.Fatal(err)
	}
	tb.Launch(cmd, nil, idleRun{}, jobrecord.Record{Socket: sockA, Pane: "%1", Started: time.Now()})
	cmd.end(jobrecord.Exited, nil, "", time.Now())
	var calls []*Job
	start := func() (*Job, error) {
		return tb.StartCall(sockA, "get_job", CallControl{}, jobrecord.Call{Status: "working"})
	}
	for range MaxCalls + 10 {
		j, err := start()
		if err != nil {
			t.Fatalf("call %d: %v", len(calls), err)
		}
		j.UpdateCall(jobrecord.Call{Status: "completed"})
		calls = append(calls, j)
	}
	for i, j := range calls {
		_, err := tb.Lookup(t.Context(), j.ID())
		if wantGone := i < 10; errors.Is(err, ErrNotFound) != wantGone {
			t.Errorf("ended call %d of %d: Lookup %v, want gone %v (the oldest ended go first)", i, len(calls), err, wantGone)
		}
	}
	if _, err := tb.Lookup(t.Context(), cmd.ID()); err != nil {
		t.Errorf("the ended command after %d calls: %v, want it kept", len(calls), err)
	}
	for range MaxCalls {
		if _, err := start(); err != nil {
			t.Fatalf("a running call in place of an ended one: %v", err)
		}
	}
	if _, err := start(); !errors.Is(err, ErrTooManyCalls) {
		t.Errorf("a call beyond %d running ones: %v, want ErrTooManyCalls", MaxCalls, err)
	}
}
