package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// awaited is what one wait for a job's channel gave.
type awaited struct {
	res runResult
	err error
}

// watch waits for j to end (see the comment at the top of job_table.go) until
// it does or ctx ends.
func (j *job) watch(ctx context.Context) {
	ends := make(chan awaited, 1)
	waitCtx, stopWait := context.WithCancel(ctx)
	defer stopWait()
	j.goAwait(waitCtx, ends)

	feed := watchPane(ctx, j.run.srv, j.run.pane, jobLiveEvery)
	defer func() { feed.close() }()
	live := time.NewTicker(jobLiveEvery)
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
		case _, ok := <-feed.C:
			if !ok {
				feed.reopen(ctx)
			}
			if later == nil {
				if wait := jobProbeSpacing - time.Since(last); wait > 0 {
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
				startup.Reset(min(2*time.Since(j.snapshot().Started), time.Second))
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
				settle = time.After(jobSettle)
			}
		case probeRunning:
			settle = nil
		}
	}
}

// goAwait starts awaitChannel; the table's close waits for it.
func (j *job) goAwait(ctx context.Context, out chan<- awaited) {
	j.t.wg.Add(1)
	go func() {
		defer j.t.wg.Done()
		j.awaitChannel(ctx, out)
	}()
}

// awaitChannel waits for the job's channel (run.await, renewed every
// jobWaitSlice) and sends what it gave.
func (j *job) awaitChannel(ctx context.Context, out chan<- awaited) {
	for {
		res, err := j.run.await(ctx, j.base, jobWaitSlice)
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

// keep is how many output lines a job keeps in memory: the capture
// default.
func (j *job) keep() int { return j.t.d.Sup.Config().CaptureLines }

// ended handles the end of a wait for the channel: the job exited (its end
// was read), or is lost (its pane or server is gone); false means
// it runs on.
func (j *job) ended(ctx context.Context, a awaited) bool {
	if ctx.Err() != nil {
		return true
	}
	if a.err == nil && a.res.ExitStatus != nil {
		j.learn(a.res, j.keep())
		status := *a.res.ExitStatus
		j.run.clearEnd(ctx)
		return j.end(jobExited, &status, j.stopReason(), time.Now()) || !j.running()
	}
	return j.checkPane(ctx)
}

// stopReason says that stop_job ended the job, if it sent a signal.
func (j *job) stopReason() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.signal == "" {
		return ""
	}
	return "stopped by stop_job (" + j.signal + ")"
}

// checkPane makes j lost when its server or pane is gone or was replaced,
// and reports whether j has ended.
func (j *job) checkPane(ctx context.Context) bool {
	rec := j.snapshot()
	srv := j.run.srv
	pid, err := srv.Alive(ctx)
	switch {
	case ctx.Err() != nil:
		return true
	case err != nil && tmux.IsServerDown(err):
		return j.end(jobLost, nil, "the tmux server is gone", time.Now()) || !j.running()
	case err == nil && rec.ServerPID != 0 && pid != rec.ServerPID:
		return j.end(jobLost, nil, fmt.Sprintf("the tmux server was replaced (pid %d, now %d)", rec.ServerPID, pid), time.Now()) || !j.running()
	}
	pn, err := readPane(ctx, srv, rec.Pane)
	var te *toolError
	switch {
	case ctx.Err() != nil:
		return true
	case errors.As(err, &te) && te.class == "pane_not_found":
		return j.end(jobLost, nil, "its pane was closed", time.Now()) || !j.running()
	case err != nil:
		return !j.running()
	case pn.Dead:
		return j.end(jobLost, nil, "its pane's process exited", time.Now()) || !j.running()
	case rec.PanePID != 0 && pn.PID != rec.PanePID:
		return j.end(jobLost, nil, fmt.Sprintf("its pane was respawned (pid %d, now %d)", rec.PanePID, pn.PID), time.Now()) || !j.running()
	}
	return !j.running()
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
// full probe (every jobLiveEvery) looks at the pane.
func (j *job) probe(ctx context.Context, full bool) int {
	rec := j.snapshot()
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

// started reports whether the shell is known to have started the job, or
// cannot be known to (its processes cannot be seen).
func (j *job) started() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seen || j.blind
}

func (j *job) hasBeenSeen() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seen
}

// settled runs when the job's processes have been gone for jobSettle: if
// they still are, the end its ending recorded decides; without one the
// shell dropped the rest of the file (an interrupt), and the job has
// exited with its status unknown. It reports whether the job has ended.
func (j *job) settled(ctx context.Context) bool {
	if j.probe(ctx, false) != probeNoProcess {
		return !j.running()
	}
	res, end, err := j.run.result(ctx, j.base)
	if ctx.Err() != nil {
		return true
	}
	if err != nil {
		return j.checkPane(ctx)
	}
	if end != nil {
		j.learn(res, j.keep())
		status := end.status
		j.run.clearEnd(ctx)
		return j.end(jobExited, &status, j.stopReason(), time.Now()) || !j.running()
	}
	why := "interrupted"
	if r := j.stopReason(); r != "" {
		why = r
	}
	return j.end(jobExited, nil, why+": the shell dropped the rest of the command line, so the exit status is unknown", time.Now()) ||
		!j.running()
}

// read returns the job's output: read from the pane while it runs (the
// job may be found ended by it), else what was last read.
func (j *job) read(ctx context.Context, keep int) (JobRecord, []string, error) {
	r := j.runner()
	if r != nil && j.running() && !j.started() {
		j.probe(ctx, false)
	}
	// Until the shell has started the job it has printed nothing: what
	// shows below the prompt then is the command line being echoed.
	if r != nil && j.running() && j.started() {
		res, end, err := r.result(ctx, j.base)
		switch {
		case err != nil && j.running():
			if !j.checkPane(ctx) {
				return JobRecord{}, nil, err
			}
		case err == nil:
			j.learn(res, max(keep, j.keep()))
			// Once the prompt shows after the end: a command typed into
			// the pane before it would show twice (run.await waits for it
			// too).
			if end != nil && res.prompted {
				status := end.status
				if j.end(jobExited, &status, j.stopReason(), time.Now()) {
					r.clearEnd(ctx)
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

// load takes over the stored jobs of tmux-mcp processes that are gone:
// ended ones are listed; running ones are checked against the live server
// and watched again.
func (t *jobTable) load() {
	if t.store == nil {
		return
	}
	recs, err := t.store.Jobs()
	if err != nil {
		t.d.log().Warn("jobs: cannot read the stored jobs", "err", err.Error())
		return
	}
	me := os.Getpid()
	var rearm []*job
	t.mu.Lock()
	for _, rec := range recs {
		if t.jobs[rec.ID] != nil || rec.Proc != me && rec.Proc > 0 && processAlive(rec.Proc) {
			continue // another tmux-mcp watches it
		}
		j := &job{t: t, id: rec.ID, sock: rec.Socket, rec: rec, done: make(chan struct{}), verified: make(chan struct{}),
			kick: make(chan struct{}, 1), seenC: make(chan struct{})}
		if rec.State == jobRunning {
			rearm = append(rearm, j)
		} else {
			close(j.done)
			close(j.verified)
		}
		t.jobs[rec.ID] = j
	}
	t.trimEnded()
	t.mu.Unlock()
	for _, j := range rearm {
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.rearm(j)
		}()
	}
}

// rearm checks a running job taken over from the store against the live
// server, then watches it.
func (t *jobTable) rearm(j *job) {
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	j.mu.Lock()
	j.cancel = cancel
	rec := j.rec
	j.rec.Proc = os.Getpid()
	j.mu.Unlock()
	// A job that ran before this process started was started by its
	// shell (unless tmux-mcp restarted within a second of typing it and
	// the shell took longer than that to start it).
	j.markSeen()
	verified := false
	defer func() {
		if !verified {
			close(j.verified)
		}
	}()
	srv, err := t.d.Sup.Existing(ctx, rec.Socket)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		j.end(jobLost, nil, "the tmux server is gone", time.Now())
		return
	}
	if pid := srv.Health().PID; rec.ServerPID != 0 && pid != rec.ServerPID {
		j.end(jobLost, nil, fmt.Sprintf("the tmux server was replaced (pid %d, now %d)", rec.ServerPID, pid), time.Now())
		return
	}
	j.run = t.d.newRun(srv, rec.Pane)
	j.run.nonce, j.run.file, j.run.lines = rec.Nonce, rec.File, max(rec.Lines, 1)
	j.base = tmux.Pane{ID: rec.Pane, PID: rec.PanePID, HistorySize: rec.HistorySize, HistoryLimit: rec.HistoryLimit,
		Width: rec.Width, Height: rec.Height, CursorY: rec.CursorY}
	j.run.anchor = paneAnchor(j.base)
	if j.checkPane(ctx) {
		return
	}
	// It may have ended while no tmux-mcp watched: the end its ending
	// recorded says so. Its channel may not: tmux keeps the wait of a
	// client that was killed (the last tmux-mcp's) and gives it the
	// signal.
	res, end, err := j.run.result(ctx, j.base)
	if err == nil && end != nil {
		j.learn(res, j.keep())
		status := end.status
		j.run.clearEnd(ctx)
		j.end(jobExited, &status, "", time.Now())
		return
	}
	t.put(j.snapshot())
	verified = true
	close(j.verified)
	j.watch(ctx)
}
