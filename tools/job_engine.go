package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/taskext"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// The tools' side of the jobs engine (package jobs): the table one
// catalog shares, and the engine's errors as tool errors. The engine
// reads a job's pane through package drive itself.

// newJobTable returns the jobs table of d's tools; New opens it.
func newJobTable(d Deps) *jobs.Table {
	return jobs.New(jobs.Config{Sup: d.Sup, Store: d.Jobs, Events: d.events(), Log: d.log()})
}

// lookupJob returns the job id names, as jobs.Table.Lookup, with its
// refusals as tool errors.
func (d Deps) lookupJob(ctx context.Context, id string) (*jobs.Job, error) {
	j, err := d.jobs.Lookup(ctx, id)
	if err == nil && !seesJob(taskext.OwnerOf(ctx), j.Record()) {
		err = jobs.ErrNotFound // another caller's task: as if it never was
	}
	switch {
	case errors.Is(err, jobs.ErrInvalidID):
		return nil, tooldef.BadArg("job_id", "want a job ID like j0123456789, from run_command with background")
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
