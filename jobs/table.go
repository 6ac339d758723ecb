package jobs

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Bounds of jobs.
const (
	// MaxPerServer bounds the running jobs of one server: each holds one
	// of the supervisor's blocking slots (supervisor.WaitForChannel, 16 a
	// server) with its wait-for client, and the rest stay for
	// run_command and wait_for_channel.
	MaxPerServer = 8
	// keepEnded is how many ended commands this process keeps in memory.
	keepEnded = 200
	// MaxCalls bounds the calls (MCP tasks) the table holds, running ones
	// included; beyond it the oldest ended call is forgotten, and a call
	// is refused (ErrTooManyCalls) when every one held runs. Calls and
	// commands are bounded apart: a client's tasks never push a
	// background command out.
	MaxCalls = 200
	// tailMaxLines and tailMaxBytes bound the tail the store keeps.
	tailMaxLines = 50
	tailMaxBytes = 4000
	// waitSlice is how long one wait-for waits before it is renewed
	// (a blocking command needs a deadline).
	waitSlice = time.Hour
	// liveEvery is how often a job checks its pane's process when no
	// change of the pane wakes it.
	liveEvery = 5 * time.Second
	// probeSpacing is the least time between two checks of a job's
	// processes.
	probeSpacing = 250 * time.Millisecond
	// settleWait is how long the end may take to be recorded once the
	// job's processes are gone, before the job counts as ended without
	// one.
	settleWait = time.Second
	// verifyWait bounds how long a read waits for a job taken over at
	// start to be checked against the live server.
	verifyWait = 10 * time.Second
)

// Events is the part of the supervisor the table hears server deaths
// from.
type Events interface {
	Subscribe(fn func(supervisor.Event)) (unsubscribe func())
}

// Config is what a Table needs.
type Config struct {
	// Sup finds the server of a job taken over from the store; its
	// capture default is how many output lines a job keeps in memory.
	Sup *supervisor.Supervisor
	// Store keeps the jobs across restarts; nil keeps them in this
	// process only.
	Store Store
	// Events delivers supervisor.EventServerDied; nil: none.
	Events Events
	// Log hears of a store that cannot be read; nil discards.
	Log *slog.Logger
}

// Table is this process's jobs. One is shared by the tools of one catalog.
type Table struct {
	sup    *supervisor.Supervisor
	store  Store
	events Events
	log    *slog.Logger

	ctx    context.Context // ends with the table: the jobs' goroutines
	cancel context.CancelFunc
	wg     sync.WaitGroup
	unsub  func()

	mu        sync.Mutex
	jobs      map[string]*Job
	listeners []func(jobrecord.Record)
	closed    bool
}

// New returns an empty table; Open starts it.
func New(cfg Config) *Table {
	ctx, cancel := context.WithCancel(context.Background())
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Table{sup: cfg.Sup, store: cfg.Store, events: cfg.Events, log: log,
		ctx: ctx, cancel: cancel, jobs: map[string]*Job{}}
}

// Open subscribes to server deaths and takes over the stored jobs of
// tmux-mcp processes that are gone.
func (t *Table) Open() {
	if t.events != nil {
		t.unsub = t.events.Subscribe(func(e supervisor.Event) {
			if e.Type == supervisor.EventServerDied {
				t.serverDied(e)
			}
		})
	}
	t.load()
}

// OnChange registers fn to hear of every job that ends (or is lost). fn
// must not block.
func (t *Table) OnChange(fn func(jobrecord.Record)) {
	t.mu.Lock()
	t.listeners = append(t.listeners, fn)
	t.mu.Unlock()
}

// Close stops watching: the jobs run on, and the store keeps them running
// for the next tmux-mcp. It returns once every goroutine of the table is
// gone.
func (t *Table) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	if t.unsub != nil {
		t.unsub()
	}
	t.cancel()
	t.wg.Wait()
}

// Lookup returns the job id names, waiting (within ctx and verifyWait)
// until a job taken over at start has been checked. It fails with
// ErrInvalidID or ErrNotFound.
func (t *Table) Lookup(ctx context.Context, id string) (*Job, error) {
	if !idRe.MatchString(id) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	t.mu.Lock()
	j := t.jobs[id]
	t.mu.Unlock()
	if j == nil || j.pending {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	j.AwaitVerified(ctx)
	return j, nil
}

// All returns the listed jobs, oldest first.
func (t *Table) All() []*Job {
	t.mu.Lock()
	out := make([]*Job, 0, len(t.jobs))
	for _, j := range t.jobs {
		if !j.pending {
			out = append(out, j)
		}
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b *Job) int {
		ra, rb := a.Record(), b.Record()
		if c := ra.Started.Compare(rb.Started); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	return out
}

// busyIn returns the running job in pane, if any; called with t.mu held.
func (t *Table) busyIn(sock tmux.Socket, pane tmux.PaneID) *Job {
	for _, j := range t.jobs {
		if j.sock == sock && j.Running() && j.kind() == "" && j.paneID() == pane {
			return j
		}
	}
	return nil
}

// CheckFree refuses a pane where a job runs, with a *BusyError.
func (t *Table) CheckFree(sock tmux.Socket, pane tmux.PaneID) error {
	t.mu.Lock()
	j := t.busyIn(sock, pane)
	t.mu.Unlock()
	if j == nil {
		return nil
	}
	return &BusyError{Pane: pane, Job: j.id}
}

// Reserve adds a pending job for pane, not listed until Launch, or
// refuses: with a *BusyError when the pane is busy, a *LimitError when the
// server runs as many jobs as it may, supervisor.ErrClosed once the table
// is closed.
func (t *Table) Reserve(sock tmux.Socket, pane tmux.PaneID) (*Job, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, supervisor.ErrClosed
	}
	if j := t.busyIn(sock, pane); j != nil {
		return nil, &BusyError{Pane: pane, Job: j.id}
	}
	n := 0
	for _, j := range t.jobs {
		if j.sock == sock && j.Running() && j.kind() == "" {
			n++
		}
	}
	if n >= MaxPerServer {
		return nil, &LimitError{Running: n}
	}
	j := newJob(t, newID(), sock)
	j.pending = true
	j.rec.Pane = pane
	t.jobs[j.id] = j
	return j, nil
}

// Drop removes a reserved job whose command was not sent.
func (t *Table) Drop(j *Job) {
	t.mu.Lock()
	delete(t.jobs, j.id)
	t.mu.Unlock()
}

// Launch records a reserved job whose command run sent to srv, and starts
// watching it. rec describes it; Launch sets its ID, State (Running) and
// Proc (this process).
func (t *Table) Launch(j *Job, srv *supervisor.Server, run Run, rec jobrecord.Record) {
	j.srv, j.run = srv, run
	rec.ID, rec.State, rec.Proc = j.id, jobrecord.Running, os.Getpid()
	j.mu.Lock()
	j.rec = rec
	j.mu.Unlock()
	close(j.verified)
	t.mu.Lock()
	j.pending = false
	t.mu.Unlock()
	t.put(rec)
	t.watch(j)
}

// flusher is a Store that can wait until what it was given is written.
type flusher interface {
	Flush(ctx context.Context) error
}

// Durable waits, at most until ctx ends, until the store has written what
// it was given, so that a job reported to a client is found again by the
// next tmux-mcp even if this one is killed the moment after. A store that
// writes at once, or none, returns at once.
func (t *Table) Durable(ctx context.Context) error {
	f, ok := t.store.(flusher)
	if !ok {
		return nil
	}
	return f.Flush(ctx)
}

// watch starts j's watcher.
func (t *Table) watch(j *Job) {
	ctx, cancel := context.WithCancel(t.ctx)
	j.mu.Lock()
	j.cancel = cancel
	j.mu.Unlock()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer cancel()
		j.watch(ctx)
	}()
}

func (t *Table) put(rec jobrecord.Record) {
	if t.store != nil {
		t.store.PutJob(putCall(rec))
	}
}

// trimEnded forgets the oldest ended commands beyond keepEnded and the
// oldest ended calls beyond MaxCalls; called with t.mu held.
func (t *Table) trimEnded() {
	t.trim(false, keepEnded)
	t.trim(true, MaxCalls)
}

// trim forgets the oldest ended jobs of one kind (calls, or commands)
// until at most keep jobs of it are held, running ones counted; it
// reports whether that many are held now. Called with t.mu held.
func (t *Table) trim(calls bool, keep int) bool {
	var ended []*Job
	n := 0
	for _, j := range t.jobs {
		if j.pending || (j.kind() == jobrecord.KindCall) != calls {
			continue
		}
		n++
		if !j.Running() {
			ended = append(ended, j)
		}
	}
	if !calls {
		n = len(ended) // commands: the ended ones are bounded (running ones by MaxPerServer)
	}
	if n <= keep {
		return true
	}
	slices.SortFunc(ended, func(a, b *Job) int { return a.Record().Started.Compare(b.Record().Started) })
	drop := min(n-keep, len(ended))
	for _, j := range ended[:drop] {
		delete(t.jobs, j.id)
	}
	return n-drop <= keep
}

// serverDied makes every running job of the server that died lost. It
// runs on the supervisor's event goroutine.
func (t *Table) serverDied(e supervisor.Event) {
	at := e.Time
	if at.IsZero() {
		at = time.Now()
	}
	for _, j := range t.All() {
		rec := j.Record()
		if j.sock != e.Socket || rec.State != jobrecord.Running || e.PID != 0 && rec.ServerPID != 0 && rec.ServerPID != e.PID {
			continue
		}
		why := fmt.Sprintf("the tmux server died (%s)", e.Cause)
		j.end(jobrecord.Lost, nil, why, at)
		if rec.Kind == jobrecord.KindCall && j.ctl.Fail != nil {
			j.ctl.Fail(why)
		}
	}
}

// removeFile removes a job's file, and its directory if that is empty
// now (the directory of a tmux-mcp that stopped while the job ran).
func removeFile(path string) {
	if path == "" {
		return
	}
	os.Remove(path)               //nolint:errcheck // gone already is fine
	os.Remove(filepath.Dir(path)) //nolint:errcheck // not empty, or gone: fine
}
