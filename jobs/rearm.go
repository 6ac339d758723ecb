package jobs

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
)

// After a restart. A tmux-mcp that starts takes over the jobs of the
// tmux-mcp processes that are gone (jobrecord.Record.Proc), from the
// store, and checks the running ones against the live server before it
// reports them (AwaitVerified): same server, same pane process, else
// lost; an end recorded in the pane's option, else it waits for their
// channel again.

// load takes over the stored jobs of tmux-mcp processes that are gone:
// ended ones are listed; running ones are checked against the live server
// and watched again.
func (t *Table) load() {
	if t.store == nil {
		return
	}
	recs, err := t.store.Jobs()
	if err != nil {
		t.log.Warn("jobs: cannot read the stored jobs", "err", err.Error())
		return
	}
	me := os.Getpid()
	var rearm []*Job
	var lost []jobrecord.Record
	t.mu.Lock()
	for _, rec := range recs {
		if t.jobs[rec.ID] != nil || rec.Proc != me && rec.Proc > 0 && processAlive(rec.Proc) {
			continue // another tmux-mcp watches it
		}
		j := newJob(t, rec.ID, rec.Socket)
		if rec.Kind == jobrecord.KindCall && rec.State == jobrecord.Running {
			rec = loseCall(rec)
			lost = append(lost, rec)
		}
		j.rec = rec
		if rec.State == jobrecord.Running {
			rearm = append(rearm, j)
		} else {
			close(j.done)
			close(j.verified)
		}
		t.jobs[rec.ID] = j
	}
	t.trimEnded()
	t.mu.Unlock()
	for _, rec := range lost {
		t.put(rec)
	}
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
func (t *Table) rearm(j *Job) {
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
	srv, err := t.sup.Existing(ctx, rec.Socket)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		j.end(jobrecord.Lost, nil, "the tmux server is gone", time.Now())
		return
	}
	if pid := srv.Health().PID; rec.ServerPID != 0 && pid != rec.ServerPID {
		j.end(jobrecord.Lost, nil, fmt.Sprintf("the tmux server was replaced (pid %d, now %d)", rec.ServerPID, pid), time.Now())
		return
	}
	j.srv, j.run = srv, t.resume(srv, rec)
	if j.checkPane(ctx) {
		return
	}
	// It may have ended while no tmux-mcp watched: the end its ending
	// recorded says so. Its channel may not: tmux keeps the wait of a
	// client that was killed (the last tmux-mcp's) and gives it the
	// signal.
	res, err := j.run.Result(ctx)
	if err == nil && res.ExitStatus != nil {
		j.learn(res, j.keep())
		status := *res.ExitStatus
		j.run.ClearEnd(ctx)
		j.end(jobrecord.Exited, &status, "", time.Now())
		return
	}
	t.put(j.Record())
	verified = true
	close(j.verified)
	j.watch(ctx)
}
