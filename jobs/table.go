package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// Background jobs.
//
// A job is a run_command with background set: the same line and file,
// end and private wait-for channel, typed the same way, but the call returns
// at once with a job ID and a goroutine of this process waits for the end
// (jobTable, job.watch). The pane stays a pane: a person can watch it and
// anyone can type into it; only another run_command, foreground or not,
// is refused while the job runs there.
//
// The end is found three ways, whichever comes first:
//   - the wait-for channel (run.await): the file's ending signals it after
//     recording the end in a pane option; exact, and no tmux call while
//     the command runs;
//   - the job's processes (jobProcesses): when the processes the shell
//     started for the job are gone and no end is recorded, the shell
//     dropped the rest of the file, which every POSIX shell does after a
//     command dies of SIGINT (C-c): the job has exited, its status
//     unknown;
//   - the pane and the server: a pane closed or respawned, or a server
//     that died (supervisor.EventServerDied), makes the job lost.
//
// Jobs are recorded in the journal (JobStore) at every change of state.
// A tmux-mcp that starts takes over the jobs of tmux-mcp processes that
// are gone, and checks the running ones against the live server before
// it reports them: same server, same pane process, else lost; an end
// recorded in the pane's option, else it waits for their channel again.
// (The record comes first: tmux keeps the wait of a client that was
// killed, the last tmux-mcp's, and hands it a signal sent while nobody
// else waited.)

// Job states.
const (
	jobRunning = "running"
	jobExited  = "exited"
	jobLost    = "lost"
)

// JobStore keeps jobs across tmux-mcp restarts. cmd/tmux-mcp passes one
// over the journal; nil keeps jobs in this process only.
type JobStore interface {
	// PutJob records a job; it never blocks. A record of a job that
	// ended is never replaced by one that says it runs.
	PutJob(JobRecord)
	// Jobs returns the jobs of every server, oldest first.
	Jobs() ([]JobRecord, error)
}

// JobRecord is what the store keeps of a job. It holds no command line.
type JobRecord struct {
	ID          string
	Socket      tmux.Socket
	Pane        tmux.PaneID
	SessionID   string
	SessionName string
	Nonce       string // names the end's pane option and the wait-for channel
	State       string
	ExitStatus  *int
	Reason      string
	Started     time.Time
	Ended       time.Time
	ServerPID   int
	PanePID     int
	// Where the pane's history stood when the job was typed.
	HistorySize, HistoryLimit, Width, Height, CursorY int
	// Lines is how many lines the command shows as, the prompt's among
	// them (0 in records of before: 1).
	Lines int
	// Before are the processes below the pane's process just before the
	// job was typed: they are not the job's.
	Before []int
	// File is the file the typed line sources; it removes itself when the
	// shell reads it (and goes when the job ends, if the shell never did).
	File string
	// Tail is the end of the output as last read (jobTailLines,
	// jobTailBytes).
	Tail              []string
	TruncatedLines    int
	HistoryOverflowed bool
	Proc              int // the tmux-mcp process that watches it
}

// Bounds of jobs.
const (
	// maxJobsPerServer bounds the running jobs of one server: each holds
	// one of the supervisor's blocking slots (supervisor.DoBlocking, 16 a
	// server) with its wait-for client, and the rest stay for
	// run_command and wait_for_channel.
	maxJobsPerServer = 8
	// keepEnded is how many ended jobs this process keeps in memory.
	keepEnded = 200
	// jobTailLines and jobTailBytes bound the tail the store keeps.
	jobTailLines = 50
	jobTailBytes = 4000
	// jobWaitSlice is how long one wait-for waits before it is renewed
	// (DoBlocking needs a deadline).
	jobWaitSlice = time.Hour
	// jobLiveEvery is how often a job checks its pane's process when no
	// change of the pane wakes it.
	jobLiveEvery = 5 * time.Second
	// jobProbeSpacing is the least time between two checks of a job's
	// processes.
	jobProbeSpacing = 250 * time.Millisecond
	// jobSettle is how long the end may take to be recorded once the
	// job's processes are gone, before the job counts as ended without
	// one.
	jobSettle = time.Second
	// jobVerifyWait bounds how long a read waits for a job taken over at
	// start to be checked against the live server.
	jobVerifyWait = 10 * time.Second
)

// jobTable is this process's jobs. It is shared by the tools of one
// catalog (Deps.jobs).
type jobTable struct {
	d     Deps
	store JobStore
	// files holds the files the jobs' lines source; unlike
	// run_command's, they stay when tmux-mcp stops, for the jobs that
	// run on.
	files *runFiles

	ctx    context.Context // ends with the table: the jobs' goroutines
	cancel context.CancelFunc
	wg     sync.WaitGroup
	unsub  func()

	mu        sync.Mutex
	jobs      map[string]*job
	listeners []func(JobRecord)
	closed    bool
}

func newJobTable(d Deps) *jobTable {
	ctx, cancel := context.WithCancel(context.Background())
	return &jobTable{d: d, store: d.Jobs, files: &runFiles{base: d.TempDir}, ctx: ctx, cancel: cancel, jobs: map[string]*job{}}
}

// open subscribes to server deaths and takes over the stored jobs of
// tmux-mcp processes that are gone.
func (t *jobTable) open() {
	if src := t.d.events(); src != nil {
		t.unsub = src.Subscribe(func(e supervisor.Event) {
			if e.Type == supervisor.EventServerDied {
				t.serverDied(e)
			}
		})
	}
	t.load()
}

// onChange registers fn to hear of every job that ends (or is lost). fn
// must not block.
func (t *jobTable) onChange(fn func(JobRecord)) {
	t.mu.Lock()
	t.listeners = append(t.listeners, fn)
	t.mu.Unlock()
}

// close stops watching: the jobs run on, and the store keeps them running
// for the next tmux-mcp.
func (t *jobTable) close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	if t.unsub != nil {
		t.unsub()
	}
	t.cancel()
	t.wg.Wait()
	t.files.closeIfEmpty()
}

// job is one background command.
type job struct {
	t    *jobTable
	id   string
	sock tmux.Socket
	done chan struct{} // closed when the job leaves running
	// verified is closed once a job is known to be watched: at once for
	// a job this process started, after the check against the live
	// server for one taken over from the store.
	verified chan struct{}
	kick     chan struct{} // check the job's processes now
	pending  bool          // reserved, not typed yet: not listed

	// run and base are set before verified is closed (runner).
	run  *run
	base tmux.Pane

	mu     sync.Mutex
	rec    JobRecord
	output []string // the output as last read, capped at the capture default
	final  bool     // output is up to the end
	// seen: a process of the job was seen, so the shell did start it;
	// seenC is closed then.
	seen  bool
	seenC chan struct{}
	// signal is the last signal stop_job sent ("" for none).
	signal string
	// blind: the pane's process is not among the processes this process
	// sees (another PID namespace), so the job's processes are not
	// either.
	blind  bool
	cancel context.CancelFunc
}

var jobIDRe = regexp.MustCompile(`^j[0-9a-f]{10}$`)

// newJobID returns "j" and 10 random hex digits. It is not the nonce:
// knowing a job's ID does not let output forge its end.
func newJobID() string {
	var b [5]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
	return "j" + hex.EncodeToString(b[:])
}

// snapshot returns the job's record.
func (j *job) snapshot() JobRecord {
	j.mu.Lock()
	defer j.mu.Unlock()
	r := j.rec
	r.Tail = slices.Clone(r.Tail)
	return r
}

// runner returns the job's run once it is watched (nil before, or for a
// job taken over that could not be).
func (j *job) runner() *run {
	select {
	case <-j.verified:
		return j.run
	default:
		return nil
	}
}

// markSeen notes that a process of the job was seen.
func (j *job) markSeen() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.seen {
		j.seen = true
		close(j.seenC)
	}
}

func (j *job) running() bool {
	select {
	case <-j.done:
		return false
	default:
		return true
	}
}

// lookup returns the job id names, waiting (within ctx and
// jobVerifyWait) until a job taken over at start has been checked.
func (t *jobTable) lookup(ctx context.Context, id string) (*job, error) {
	if !jobIDRe.MatchString(id) {
		return nil, argError("job_id", "want a job ID like j0123456789, from run_command with background")
	}
	t.mu.Lock()
	j := t.jobs[id]
	t.mu.Unlock()
	if j == nil || j.pending {
		return nil, &toolError{msg: "Job not found: " + id, class: "job_not_found", hint: "Call list_jobs to see the jobs."}
	}
	t.awaitVerified(ctx, j)
	return j, nil
}

func (t *jobTable) awaitVerified(ctx context.Context, j *job) {
	timer := time.NewTimer(jobVerifyWait)
	defer timer.Stop()
	select {
	case <-j.verified:
	case <-ctx.Done():
	case <-timer.C:
	}
}

// all returns the listed jobs, oldest first.
func (t *jobTable) all() []*job {
	t.mu.Lock()
	out := make([]*job, 0, len(t.jobs))
	for _, j := range t.jobs {
		if !j.pending {
			out = append(out, j)
		}
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b *job) int {
		ra, rb := a.snapshot(), b.snapshot()
		if c := ra.Started.Compare(rb.Started); c != 0 {
			return c
		}
		return compareStrings(a.id, b.id)
	})
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// busyIn returns the running job in pane, if any; called with t.mu held.
func (t *jobTable) busyIn(sock tmux.Socket, pane tmux.PaneID) *job {
	for _, j := range t.jobs {
		if j.sock == sock && j.running() && j.paneID() == pane {
			return j
		}
	}
	return nil
}

func (j *job) paneID() tmux.PaneID {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rec.Pane
}

// checkFree refuses a pane where a job runs.
func (t *jobTable) checkFree(sock tmux.Socket, pane tmux.PaneID) error {
	t.mu.Lock()
	j := t.busyIn(sock, pane)
	t.mu.Unlock()
	if j == nil {
		return nil
	}
	return busyError(pane, j.id)
}

func busyError(pane tmux.PaneID, id string) error {
	return &toolError{msg: fmt.Sprintf("pane %s is busy: job %s runs there; nothing was sent", pane, id), class: "pane_busy",
		hint: "Use another pane (split_window), wait for the job (get_job with timeout), or stop it (stop_job)."}
}

// reserve adds a pending job for pane, or refuses when the pane is busy
// or the server runs as many jobs as it may.
func (t *jobTable) reserve(sock tmux.Socket, pane tmux.PaneID) (*job, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, supervisor.ErrClosed
	}
	if j := t.busyIn(sock, pane); j != nil {
		return nil, busyError(pane, j.id)
	}
	n := 0
	for _, j := range t.jobs {
		if j.sock == sock && j.running() {
			n++
		}
	}
	if n >= maxJobsPerServer {
		return nil, &toolError{msg: fmt.Sprintf("%d jobs already run on this tmux server, the most tmux-mcp watches at once", n),
			class: "too_many_jobs", hint: "Wait for one to end (get_job with timeout) or stop one (stop_job); list_jobs shows them."}
	}
	j := &job{t: t, id: newJobID(), sock: sock, done: make(chan struct{}), verified: make(chan struct{}),
		kick: make(chan struct{}, 1), seenC: make(chan struct{}), pending: true}
	j.rec.Pane = pane
	t.jobs[j.id] = j
	return j, nil
}

// drop removes a reserved job whose command was not sent.
func (t *jobTable) drop(j *job) {
	t.mu.Lock()
	delete(t.jobs, j.id)
	t.mu.Unlock()
}

// launch records a job whose command was sent and starts watching it.
func (t *jobTable) launch(j *job) {
	rec := j.snapshot()
	t.mu.Lock()
	j.pending = false
	t.mu.Unlock()
	t.put(rec)
	t.watch(j)
}

// watch starts j's watcher.
func (t *jobTable) watch(j *job) {
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

func (t *jobTable) put(rec JobRecord) {
	if t.store != nil {
		t.store.PutJob(rec)
	}
}

// end moves j out of running: exited with status (nil: unknown) or lost,
// with why, what was last read of its output, and when. It reports false
// when j had ended already.
func (j *job) end(state string, status *int, reason string, at time.Time) bool {
	j.mu.Lock()
	if j.rec.State != jobRunning {
		j.mu.Unlock()
		return false
	}
	j.rec.State, j.rec.ExitStatus, j.rec.Reason, j.rec.Ended = state, status, reason, at
	j.rec.Proc = os.Getpid()
	close(j.done)
	cancel := j.cancel
	rec := j.rec
	j.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	removeJobFile(rec.File)
	j.t.put(rec)
	j.t.mu.Lock()
	listeners := slices.Clone(j.t.listeners)
	j.t.trimEnded()
	j.t.mu.Unlock()
	for _, fn := range listeners {
		fn(rec)
	}
	return true
}

// trimEnded forgets the oldest ended jobs beyond keepEnded; called with
// t.mu held.
func (t *jobTable) trimEnded() {
	var ended []*job
	for _, j := range t.jobs {
		if !j.pending && !j.running() {
			ended = append(ended, j)
		}
	}
	if len(ended) <= keepEnded {
		return
	}
	slices.SortFunc(ended, func(a, b *job) int { return a.snapshot().Started.Compare(b.snapshot().Started) })
	for _, j := range ended[:len(ended)-keepEnded] {
		delete(t.jobs, j.id)
	}
}

// learn keeps res, output just read, as what is known of j's output; the
// store hears of a new tail.
func (j *job) learn(res runResult, keep int) {
	out, dropped := tailLines(res.Output, keep, res.TruncatedLines)
	tail, cut, _ := capTail(out, jobTailLines, jobTailBytes)
	j.mu.Lock()
	// A read that began before the end (get_job's, while the watcher
	// found the end) must not replace the output up to the end.
	if j.rec.State != jobRunning || j.final && res.ExitStatus == nil {
		j.mu.Unlock()
		return
	}
	j.final = res.ExitStatus != nil
	changed := !slices.Equal(tail, j.rec.Tail)
	j.output = out
	j.rec.Tail, j.rec.TruncatedLines, j.rec.HistoryOverflowed = tail, dropped+cut, res.HistoryOverflowed
	rec := j.rec
	j.mu.Unlock()
	if changed {
		j.t.put(rec)
	}
}

// serverDied makes every running job of the server that died lost. It
// runs on the supervisor's event goroutine.
func (t *jobTable) serverDied(e supervisor.Event) {
	at := e.Time
	if at.IsZero() {
		at = time.Now()
	}
	for _, j := range t.all() {
		rec := j.snapshot()
		if j.sock != e.Socket || rec.State != jobRunning || e.PID != 0 && rec.ServerPID != 0 && rec.ServerPID != e.PID {
			continue
		}
		j.end(jobLost, nil, fmt.Sprintf("the tmux server died (%s)", e.Cause), at)
	}
}

// removeJobFile removes a job's file, and its directory if that is empty
// now (the directory of a tmux-mcp that stopped while the job ran).
func removeJobFile(path string) {
	if path == "" {
		return
	}
	os.Remove(path)               //nolint:errcheck // gone already is fine
	os.Remove(filepath.Dir(path)) //nolint:errcheck // not empty, or gone: fine
}

// closeIfEmpty removes the directory if no file is left in it (the files
// of jobs that run on stay).
func (f *runFiles) closeIfEmpty() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir != "" && os.Remove(f.dir) == nil {
		f.dir = ""
	}
}
