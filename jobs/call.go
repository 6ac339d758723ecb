package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Calls. A tool call that became an MCP task (package taskext) is a job
// too: one ID space with the commands, the same record in the store,
// listed by list_jobs, stopped by stop_job, lost when its server dies.
// Its work is the tool's handler running in this process, not a line
// typed into a pane: the engine neither watches nor signals anything; it
// keeps the record and tells the task's owner (CallControl) to stop or to
// fail.

// CallControl is how the table acts on a call's task.
type CallControl struct {
	// Stop cancels the call (stop_job).
	Stop func()
	// Fail ends the call's task failed, for why (its server died).
	Fail func(why string)
}

// maxCallResult bounds the result a call's record keeps in the store; a
// larger one is kept in memory only.
const maxCallResult = 1 << 20

// newCallID returns "j" and 32 random hex digits: a task ID bears the
// task's result, so it must not be guessable.
func newCallID() string {
	var b [16]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
	return "j" + hex.EncodeToString(b[:])
}

// StartCall records a running call of tool against the server of sock
// and returns it, forgetting the oldest ended call if MaxCalls are held.
// It fails with ErrTooManyCalls when MaxCalls run, and with
// supervisor.ErrClosed once the table is closed.
func (t *Table) StartCall(sock tmux.Socket, tool string, ctl CallControl, c jobrecord.Call) (*Job, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, supervisor.ErrClosed
	}
	if !t.trim(true, MaxCalls-1) {
		t.mu.Unlock()
		return nil, ErrTooManyCalls
	}
	j := newJob(t, newCallID(), sock)
	j.ctl = ctl
	c.Tool = tool
	j.rec = jobrecord.Record{ID: j.id, Socket: sock, Kind: jobrecord.KindCall, Call: &c, State: jobrecord.Running, Started: time.Now(), Proc: os.Getpid()}
	close(j.verified)
	t.jobs[j.id] = j
	rec := j.rec
	t.mu.Unlock()
	t.put(rec)
	return j, nil
}

// UpdateCall records a change of a running call's task; a task that
// ended (completed, failed, cancelled) ends the job: exited, with the
// status as its reason.
func (j *Job) UpdateCall(c jobrecord.Call) {
	j.mu.Lock()
	if j.rec.Call == nil {
		j.mu.Unlock()
		return
	}
	c.Tool, c.Owner = j.rec.Call.Tool, j.rec.Call.Owner
	if running := j.rec.State == jobrecord.Running; running && c.Status == j.rec.Call.Status && c.Message == j.rec.Call.Message {
		// Nothing the record keeps changed (the task's first state, which
		// StartCall recorded): no journal write.
		j.mu.Unlock()
		return
	}
	j.rec.Call = &c
	running := j.rec.State == jobrecord.Running
	rec := j.rec
	j.mu.Unlock()
	if running && c.Status.Terminal() {
		why := "task " + string(c.Status)
		if c.Message != "" {
			why += ": " + c.Message
		}
		state := jobrecord.Exited
		if c.Lost {
			state, why = jobrecord.Lost, c.Message
		}
		j.end(state, nil, why, time.Now())
		return
	}
	j.t.put(rec)
}

// kind returns the job's jobrecord.Record.Kind.
func (j *Job) kind() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rec.Kind
}

// loseCall ends a call taken over from the store that was running: its
// handler ran in a tmux-mcp process that is gone.
func loseCall(rec jobrecord.Record) jobrecord.Record {
	why := "tmux-mcp stopped while the call ran"
	if rec.Proc > 0 {
		why += " (process " + byteless(rec.Proc) + ")"
	}
	rec.State, rec.Reason, rec.Ended = jobrecord.Lost, why, time.Now()
	if rec.Call != nil {
		c := *rec.Call
		e := &jobrecord.RPCError{Code: -32603, Message: "the call was lost: " + why +
			"; its result is unknown, and what it started (a command in a pane) may still run: read the pane before doing it again"}
		c.Status, c.Message, c.Error, c.Result = jobrecord.Failed, why, e, nil
		rec.Call = &c
	}
	return rec
}

func byteless(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// stopCall asks a call to stop and waits (within ctx and grace) for its
// end.
func (j *Job) stopCall(ctx context.Context, grace time.Duration) ([]Step, error) {
	step := Step{Signal: "cancel", Target: "the " + j.Record().Call.Tool + " call"}
	start := time.Now()
	if j.ctl.Stop != nil {
		j.ctl.Stop()
	}
	step.Ended = j.waitEnd(ctx, grace)
	step.Waited = time.Since(start)
	return []Step{step}, ctx.Err()
}

// putCall is put for a call: a result beyond maxCallResult stays in
// memory.
func putCall(rec jobrecord.Record) jobrecord.Record {
	if rec.Call == nil || len(rec.Call.Result) <= maxCallResult {
		return rec
	}
	c := *rec.Call
	c.Result = nil
	c.Message = "the result (" + byteCount(len(rec.Call.Result)) + ") was too large to keep across a restart"
	rec.Call = &c
	return rec
}

func byteCount(n int) string { return byteless(n) + " bytes" }
