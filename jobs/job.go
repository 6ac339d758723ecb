package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Job is one background command.
type Job struct {
	t    *Table
	id   string
	sock tmux.Socket
	done chan struct{} // closed when the job leaves running
	// verified is closed once a job is known to be watched: at once for
	// a job this process started, after the check against the live
	// server for one taken over from the store.
	verified chan struct{}
	kick     chan struct{} // check the job's processes now
	pending  bool          // reserved, not typed yet: not listed

	// srv and run are set before verified is closed (runner).
	srv *supervisor.Server
	run Run

	mu     sync.Mutex
	rec    jobrecord.Record
	output []string // the output as last read, capped at the capture default
	final  bool     // output is up to the end
	// seen: a process of the job was seen, so the shell did start it;
	// seenC is closed then.
	seen  bool
	seenC chan struct{}
	// signal is the last signal Stop sent ("" for none).
	signal string
	// blind: the pane's process is not among the processes this process
	// sees (another PID namespace), so the job's processes are not
	// either.
	blind  bool
	cancel context.CancelFunc
	// ctl acts on a call's task (call.go).
	ctl CallControl
}

func newJob(t *Table, id string, sock tmux.Socket) *Job {
	return &Job{t: t, id: id, sock: sock, done: make(chan struct{}), verified: make(chan struct{}),
		kick: make(chan struct{}, 1), seenC: make(chan struct{})}
}

var idRe = regexp.MustCompile(`^j([0-9a-f]{10}|[0-9a-f]{32})$`)

// newID returns "j" and 10 random hex digits. It is not the nonce:
// knowing a job's ID does not let output forge its end.
func newID() string {
	var b [5]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
	return "j" + hex.EncodeToString(b[:])
}

// ID returns the job's ID.
func (j *Job) ID() string { return j.id }

// Record returns the job's record.
func (j *Job) Record() jobrecord.Record {
	j.mu.Lock()
	defer j.mu.Unlock()
	r := j.rec
	r.Tail = slices.Clone(r.Tail)
	return r
}

// runner returns the job's run once it is watched (nil before, or for a
// job taken over that could not be).
func (j *Job) runner() Run {
	select {
	case <-j.verified:
		return j.run
	default:
		return nil
	}
}

// Server returns the server the job runs on once it is watched (nil
// before, or for a job taken over whose server could not be found).
func (j *Job) Server() *supervisor.Server {
	if j.runner() == nil {
		return nil
	}
	return j.srv
}

// AwaitVerified waits (within ctx and verifyWait) until a job taken over
// at start has been checked against the live server.
func (j *Job) AwaitVerified(ctx context.Context) {
	timer := time.NewTimer(verifyWait)
	defer timer.Stop()
	select {
	case <-j.verified:
	case <-ctx.Done():
	case <-timer.C:
	}
}

// markSeen notes that a process of the job was seen.
func (j *Job) markSeen() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.seen {
		j.seen = true
		close(j.seenC)
	}
}

// Running reports whether the job runs.
func (j *Job) Running() bool {
	select {
	case <-j.done:
		return false
	default:
		return true
	}
}

// Done is closed when the job leaves running.
func (j *Job) Done() <-chan struct{} { return j.done }

func (j *Job) paneID() tmux.PaneID {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rec.Pane
}

// end moves j out of running: exited with status (nil: unknown) or lost,
// with why, what was last read of its output, and when. It reports false
// when j had ended already.
func (j *Job) end(state string, status *int, reason string, at time.Time) bool {
	j.mu.Lock()
	if j.rec.State != jobrecord.Running {
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
	removeFile(rec.File)
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

// learn keeps res, output just read, as what is known of j's output; the
// store hears of a new tail.
func (j *Job) learn(res Result, keep int) {
	out, dropped := capture.TailLines(res.Output, keep, res.TruncatedLines)
	tail, cut, _ := capture.CapTail(out, tailMaxLines, tailMaxBytes)
	j.mu.Lock()
	// A read that began before the end (get_job's, while the watcher
	// found the end) must not replace the output up to the end.
	if j.rec.State != jobrecord.Running || j.final && res.ExitStatus == nil {
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

// keep is how many output lines a job keeps in memory: the capture
// default.
func (j *Job) keep() int { return j.t.sup.Config().CaptureLines }

// stopReason says that Stop ended the job, if it sent a signal.
func (j *Job) stopReason() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.signal == "" {
		return ""
	}
	return "stopped by stop_job (" + j.signal + ")"
}

// started reports whether the shell is known to have started the job, or
// cannot be known to (its processes cannot be seen).
func (j *Job) started() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seen || j.blind
}

func (j *Job) hasBeenSeen() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seen
}
