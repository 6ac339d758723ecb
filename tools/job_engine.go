package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/taskext"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The tools' side of the jobs engine (package jobs): the table one
// catalog shares, what the engine reads of a job's pane through
// run_command's machinery (jobRun), and the engine's errors as tool
// errors.

// newJobTable returns the jobs table of d's tools; New opens it.
func newJobTable(d Deps) *jobs.Table {
	return jobs.New(jobs.Config{Sup: d.Sup, Store: d.Jobs, Events: d.events(), Log: d.log(), Resume: d.resumeRun})
}

// jobRun is a job's line as the engine reads it (jobs.Run): the run that
// typed it, and the pane as it was just before.
type jobRun struct {
	r    *run
	base tmux.Pane
}

// resumeRun is the jobRun of a job taken over from the store
// (jobs.ResumeFunc).
func (d Deps) resumeRun(srv *supervisor.Server, rec jobrecord.Record) jobs.Run {
	r := d.newRun(srv, rec.Pane)
	r.nonce, r.file, r.lines = rec.Nonce, rec.File, max(rec.Lines, 1)
	base := tmux.Pane{ID: rec.Pane, PID: rec.PanePID, HistorySize: rec.HistorySize, HistoryLimit: rec.HistoryLimit,
		Width: rec.Width, Height: rec.Height, CursorY: rec.CursorY}
	r.anchor = paneAnchor(base)
	return jobRun{r, base}
}

func (x jobRun) Await(ctx context.Context, d time.Duration) (jobs.Result, error) {
	res, err := x.r.await(ctx, x.base, d)
	return engineResult(res), err
}

func (x jobRun) Result(ctx context.Context) (jobs.Result, error) {
	res, _, err := x.r.result(ctx, x.base)
	return engineResult(res), err
}

func (x jobRun) ClearEnd(ctx context.Context) { x.r.clearEnd(ctx) }

func (x jobRun) Pane(ctx context.Context) (tmux.Pane, error) {
	pn, err := readPane(ctx, x.r.srv, x.r.pane)
	var te *toolError
	if errors.As(err, &te) && te.class == "pane_not_found" {
		return pn, fmt.Errorf("%w: %w", tmux.ErrPaneNotFound, err)
	}
	return pn, err
}

func (x jobRun) Watch(ctx context.Context, poll time.Duration) jobs.Feed {
	return jobFeed{watchPane(ctx, x.r.srv, x.r.pane, poll)}
}

// engineResult is what the engine reads of a run's result: the exit
// status is set once the end is recorded (run.collect).
func engineResult(res runResult) jobs.Result {
	return jobs.Result{Output: res.Output, TruncatedLines: res.TruncatedLines, HistoryOverflowed: res.HistoryOverflowed,
		ExitStatus: res.ExitStatus, TimedOut: res.TimedOut, Prompted: res.prompted}
}

// jobFeed is a changeFeed as the engine reads it (jobs.Feed).
type jobFeed struct{ f *changeFeed }

func (f jobFeed) Changes() <-chan struct{}   { return f.f.C }
func (f jobFeed) Reopen(ctx context.Context) { f.f.reopen(ctx) }
func (f jobFeed) Close()                     { f.f.close() }

// lookupJob returns the job id names, as jobs.Table.Lookup, with its
// refusals as tool errors.
func (d Deps) lookupJob(ctx context.Context, id string) (*jobs.Job, error) {
	j, err := d.jobs.Lookup(ctx, id)
	if err == nil && !seesJob(taskext.OwnerOf(ctx), j.Record()) {
		err = jobs.ErrNotFound // another caller's task: as if it never was
	}
	switch {
	case errors.Is(err, jobs.ErrInvalidID):
		return nil, argError("job_id", "want a job ID like j0123456789, from run_command with background")
	case errors.Is(err, jobs.ErrNotFound):
		return nil, &toolError{msg: "Job not found: " + id, class: "job_not_found", hint: "Call list_jobs to see the jobs."}
	}
	return j, err
}

// jobError is err, a refusal of the jobs table, as a tool error.
func jobError(err error) error {
	var busy *jobs.BusyError
	var limit *jobs.LimitError
	switch {
	case errors.As(err, &busy):
		return &toolError{msg: fmt.Sprintf("pane %s is busy: job %s runs there; nothing was sent", busy.Pane, busy.Job),
			class: "pane_busy",
			hint:  "Use another pane (split_window), wait for the job (get_job with timeout), or stop it (stop_job)."}
	case errors.As(err, &limit):
		return &toolError{msg: fmt.Sprintf("%d jobs already run on this tmux server, the most tmux-mcp watches at once", limit.Running),
			class: "too_many_jobs", hint: "Wait for one to end (get_job with timeout) or stop one (stop_job); list_jobs shows them."}
	}
	return err
}
