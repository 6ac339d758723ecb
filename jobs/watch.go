package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// awaited is what one wait for a job's channel gave.
type awaited struct {
	res Result
	err error
}

// watch waits for j to end (see the package comment) until it does or ctx
// ends.
func (j *Job) watch(ctx context.Context) {
	ends := make(chan awaited, 1)
	waitCtx, stopWait := context.WithCancel(ctx)
	defer stopWait()
	j.goAwait(waitCtx, ends)

	feed := j.run.Watch(ctx, liveEvery)
	defer feed.Close()
	live := time.NewTicker(liveEvery)
	defer live.Stop()
	// Until a process of the job is seen, look for one often: a job that
	// is interrupted before it was seen to start would never be seen to
	// end.
	startup := time.NewTimer(10 * time.Millisecond)
	defer startup.Stop()
	var later, settle <-chan time.Time
	var last time.Time
	rearmDelay := 100 * time.Millisecond
	for {
		probeNow, full := false, false
		select {
		case <-ctx.Done():
			return
		case a := <-ends:
			if j.ended(ctx, a) {
				return
			}
			// The channel was signalled but the job is still there (no
			// end recorded): wait for it again, after a pause that grows
			// if this repeats.
			t := time.NewTimer(rearmDelay)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			rearmDelay = min(2*rearmDelay, 10*time.Second)
			j.goAwait(waitCtx, ends)
			continue
		case _, ok := <-feed.Changes():
			if !ok {
				feed.Reopen(ctx)
			}
			if later == nil {
				if wait := probeSpacing - time.Since(last); wait > 0 {
					later = time.After(wait)
				} else {
					probeNow = true
				}
			}
		case <-later:
			later, probeNow = nil, true
		case <-live.C:
			probeNow, full = true, true
		case <-j.kick:
			probeNow = true
		case <-startup.C:
			probeNow = true
			if !j.hasBeenSeen() {
				startup.Reset(min(2*time.Since(j.Record().Started), time.Second))
			}
		case <-settle:
			settle = nil
			if j.settled(ctx) {
				return
			}
		}
		if !probeNow {
			continue
		}
		last = time.Now()
		switch j.probe(ctx, full) {
		case probeGone:
			return
		case probeNoProcess:
			if settle == nil {
				settle = time.After(settleWait)
			}
		case probeRunning:
			settle = nil
		}
	}
}

// goAwait starts awaitChannel; the table's close waits for it.
func (j *Job) goAwait(ctx context.Context, out chan<- awaited) {
	j.t.wg.Add(1)
	go func() {
		defer j.t.wg.Done()
		j.awaitChannel(ctx, out)
	}()
}

// awaitChannel waits for the job's channel (Run.Await, renewed every
// waitSlice) and sends what it gave.
func (j *Job) awaitChannel(ctx context.Context, out chan<- awaited) {
	for {
		res, err := j.run.Await(ctx, waitSlice)
		if err == nil && res.TimedOut {
			j.learn(res, j.keep())
			continue
		}
		select {
		case out <- awaited{res, err}:
		case <-ctx.Done():
		}
		return
	}
}

// ended handles the end of a wait for the channel: the job exited (its end
// was read), or is lost (its pane or server is gone); false means
// it runs on.
func (j *Job) ended(ctx context.Context, a awaited) bool {
	if ctx.Err() != nil {
		return true
	}
	if a.err == nil && a.res.ExitStatus != nil {
		j.learn(a.res, j.keep())
		status := *a.res.ExitStatus
		j.run.ClearEnd(ctx)
		return j.end(jobrecord.Exited, &status, j.stopReason(), time.Now()) || !j.Running()
	}
	return j.checkPane(ctx)
}

// checkPane makes j lost when its server or pane is gone or was replaced,
// and reports whether j has ended.
func (j *Job) checkPane(ctx context.Context) bool {
	rec := j.Record()
	pid, err := j.srv.Alive(ctx)
	switch {
	case ctx.Err() != nil:
		return true
	case err != nil && tmux.IsServerDown(err):
		return j.end(jobrecord.Lost, nil, "the tmux server is gone", time.Now()) || !j.Running()
	case err == nil && rec.ServerPID != 0 && pid != rec.ServerPID:
		return j.end(jobrecord.Lost, nil, fmt.Sprintf("the tmux server was replaced (pid %d, now %d)", rec.ServerPID, pid), time.Now()) || !j.Running()
	}
	pn, err := j.run.Pane(ctx)
	switch {
	case ctx.Err() != nil:
		return true
	case errors.Is(err, tmux.ErrPaneNotFound):
		return j.end(jobrecord.Lost, nil, "its pane was closed", time.Now()) || !j.Running()
	case err != nil:
		return !j.Running()
	case pn.Dead:
		return j.end(jobrecord.Lost, nil, "its pane's process exited", time.Now()) || !j.Running()
	case rec.PanePID != 0 && pn.PID != rec.PanePID:
		return j.end(jobrecord.Lost, nil, fmt.Sprintf("its pane was respawned (pid %d, now %d)", rec.PanePID, pn.PID), time.Now()) || !j.Running()
	}
	return !j.Running()
}

// Outcomes of a probe.
const (
	probeRunning   = iota // a process of the job is there
	probeUnknown          // not started yet, or processes cannot be seen
	probeNoProcess        // the job's processes are gone
	probeGone             // the job ended (lost)
)

// probe looks at the job's processes, and at its pane when the pane's
// process is gone. Where the pane's process cannot be seen at all, only a
// full probe (every liveEvery) looks at the pane.
func (j *Job) probe(ctx context.Context, full bool) int {
	rec := j.Record()
	procs, shell, err := jobProcesses(ctx, rec.PanePID, rec.Before)
	j.mu.Lock()
	blind := j.blind
	j.mu.Unlock()
	switch {
	case err != nil || !shell && blind && !full:
		return probeUnknown
	case !shell:
		// The pane's process is gone (the pane closed or respawned), or
		// it runs where this process cannot see it.
		if j.checkPane(ctx) {
			return probeGone
		}
		j.mu.Lock()
		j.blind = true
		j.mu.Unlock()
		return probeUnknown
	case len(procs) > 0:
		j.markSeen()
		return probeRunning
	case !j.hasBeenSeen():
		return probeUnknown
	}
	return probeNoProcess
}

// settled runs when the job's processes have been gone for settleWait: if
// they still are, the end its ending recorded decides; without one the
// shell dropped the rest of the file (an interrupt), and the job has
// exited with its status unknown. It reports whether the job has ended.
func (j *Job) settled(ctx context.Context) bool {
	if j.probe(ctx, false) != probeNoProcess {
		return !j.Running()
	}
	res, err := j.run.Result(ctx)
	if ctx.Err() != nil {
		return true
	}
	if err != nil {
		return j.checkPane(ctx)
	}
	if res.ExitStatus != nil {
		j.learn(res, j.keep())
		status := *res.ExitStatus
		j.run.ClearEnd(ctx)
		return j.end(jobrecord.Exited, &status, j.stopReason(), time.Now()) || !j.Running()
	}
	why := "interrupted"
	if r := j.stopReason(); r != "" {
		why = r
	}
	return j.end(jobrecord.Exited, nil, why+": the shell dropped the rest of the command line, so the exit status is unknown", time.Now()) ||
		!j.Running()
}

// Read returns the job's record and its output: while it runs, read from
// the pane (keep lines at least, the job's own bound if more; the read may
// find it ended), else what was last read.
func (j *Job) Read(ctx context.Context, keep int) (jobrecord.Record, []string, error) {
	r := j.runner()
	if r != nil && j.Running() && !j.started() {
		j.probe(ctx, false)
	}
	// Until the shell has started the job it has printed nothing: what
	// shows below the prompt then is the command line being echoed.
	if r != nil && j.Running() && j.started() {
		res, err := r.Result(ctx)
		switch {
		case err != nil && j.Running():
			if !j.checkPane(ctx) {
				return jobrecord.Record{}, nil, err
			}
		case err == nil:
			j.learn(res, max(keep, j.keep()))
			// Once the prompt shows after the end: a command typed into
			// the pane before it would show twice (Run.Await waits for it
			// too).
			if res.ExitStatus != nil && res.Prompted {
				status := *res.ExitStatus
				if j.end(jobrecord.Exited, &status, j.stopReason(), time.Now()) {
					r.ClearEnd(ctx)
				}
			}
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	out := j.output
	if out == nil {
		out = j.rec.Tail
	}
	return j.rec, out, nil
}
