package tools

import (
	"context"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/taskext"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// jobStarted is run_command's result with background: the job's ID, and
// run_command's fields as they stand at the start.
type jobStarted struct {
	drive.RunResult
	JobID string `json:"job_id"`
	State string `json:"state"`
}

// startJob is run_command with background: it types the command as
// run_command does and returns at once with a job ID.
func (d Deps) startJob(ctx context.Context, p tooldef.Args, cmd string, noHistory bool) (*mcp.CallToolResult, error) {
	start := time.Now()
	if _, ok := p["timeout"]; ok {
		return nil, tooldef.BadArg("timeout", "does not apply with background; get_job takes one to wait for the job")
	}
	tp, err := d.startTyping(ctx, p)
	if err != nil {
		return nil, err
	}
	defer tp.unlock()
	srv, pn := tp.srv, tp.pane
	j, err := d.jobs.Reserve(srv.Socket(), pn.ID)
	if err != nil {
		return nil, jobError(err)
	}
	before, _ := jobs.PaneProcesses(ctx, pn.PID) // unknown: every process below counts as the job's
	r := d.newRun(srv, pn.ID)
	started := time.Now()
	line, err := r.Start(ctx, d.jobFiles, d.tmuxPath(), cmd, noHistory)
	base := line.Base()
	if err != nil {
		d.jobs.Drop(j)
		return nil, err
	}
	d.jobs.Launch(j, srv, jobs.NewRun(line), jobrecord.Record{Socket: srv.Socket(), Pane: pn.ID, SessionID: string(base.SessionID),
		SessionName: base.SessionName, Nonce: line.Nonce(), Started: started, ServerPID: srv.Health().PID, PanePID: base.PID,
		Anchor: jobrecord.Anchor{HistorySize: base.HistorySize, HistoryLimit: base.HistoryLimit, Width: base.Width, Height: base.Height,
			CursorY: base.CursorY, Lines: line.Lines()},
		Before: before, File: line.File()})
	// The job ID goes to the client once the journal holds the job: a
	// tmux-mcp killed the moment after leaves it to the next one.
	dctx, cancel := context.WithTimeout(ctx, jobDurableWait)
	if err := d.jobs.Durable(dctx); err != nil {
		d.log().Warn("job not yet in the journal", "job", j.ID(), "err", err)
	}
	cancel()
	return structured(jobStarted{RunResult: drive.RunResult{PaneID: string(pn.ID), Output: []string{}, ReadyTimedOut: tp.notReady,
		Elapsed: seconds(time.Since(start))}, JobID: j.ID(), State: jobrecord.Running})
}

// jobDurableWait bounds the wait for a new job's journal record.
const jobDurableWait = 2 * time.Second

// jobItem is a job without its output: a row of list_jobs, and what
// stop_job returns.
type jobItem struct {
	JobID       string  `json:"job_id"`
	State       string  `json:"state"`
	ExitStatus  *int    `json:"exit_status"`
	Reason      string  `json:"reason"`
	PaneID      string  `json:"pane_id"`
	SessionName string  `json:"session_name"`
	StartedAt   string  `json:"started_at"`
	Elapsed     float64 `json:"elapsed_seconds"`
	// Tool is the tool of a job that is an MCP task's call (a task
	// status in TaskStatus), "" for a background command.
	Tool       string `json:"tool,omitempty"`
	TaskStatus string `json:"task_status,omitempty"`
}

// jobResult is a job as get_job and tmux://jobs/{job_id} show it.
type jobResult struct {
	jobItem
	Output            []string `json:"output"`
	Truncated         bool     `json:"output_truncated"`
	TruncatedLines    int      `json:"output_truncated_lines"`
	HistoryOverflowed bool     `json:"history_overflowed"`
	// Outcome is how get_job's wait ended: ended, matched, timeout; ""
	// without a wait.
	Outcome      string   `json:"outcome"`
	MatchedLines []string `json:"matched_lines"`
}

// jobSchema lists the fields an agent acts on; the others (reason,
// pane_id, session_name, started_at, elapsed_seconds, the truncation
// counts, matched_lines) are always there too.
var jobSchema = tooldef.Record(tField, []string{"job_id", "state", "output", "outcome"}, map[string]any{"exit_status": tIntNull})

// jobDefaultLines is the default of get_job's max_lines.
const jobDefaultLines = 50

// viewJob reads j (its output from the pane while it runs) and returns it
// with the last keep lines of its output.
func viewJob(ctx context.Context, j *jobs.Job, keep int) (jobResult, error) {
	v, _, err := viewJobAll(ctx, j, keep)
	return v, err
}

// viewJobAll is viewJob that also returns all the output known.
func viewJobAll(ctx context.Context, j *jobs.Job, keep int) (jobResult, []string, error) {
	rec, out, err := j.Read(ctx, keep)
	if err != nil {
		return jobResult{}, nil, err
	}
	lines, dropped := capture.TailLines(slices.Clone(out), keep, rec.TruncatedLines)
	v := jobResult{jobItem: listItem(rec)}
	v.Output, v.TruncatedLines, v.HistoryOverflowed = lines, dropped, rec.HistoryOverflowed
	v.Truncated = dropped > 0 || rec.HistoryOverflowed
	v.MatchedLines = []string{}
	return v, out, nil
}

// listItem is a job without its output.
func listItem(rec jobrecord.Record) jobItem {
	end := time.Now()
	if rec.State != jobrecord.Running && !rec.Ended.IsZero() {
		end = rec.Ended
	}
	it := jobItem{JobID: rec.ID, State: rec.State, ExitStatus: rec.ExitStatus, Reason: rec.Reason, PaneID: string(rec.Pane),
		SessionName: rec.SessionName, StartedAt: rec.Started.UTC().Format(time.RFC3339), Elapsed: seconds(end.Sub(rec.Started))}
	if rec.Call != nil {
		it.Tool, it.TaskStatus = rec.Call.Tool, string(rec.Call.Status)
	}
	return it
}

// GetJob returns a job's state and output, optionally after waiting for
// it to end or print a pattern.
func GetJob(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("get_job", "A job's state, exit status and output tail; with timeout, waits first for its end or patterns.",
		tooldef.Read, jobSchema,
		mcp.WithString("job_id", mcp.Required()), pTimeout, mcp.WithArray("patterns", mcp.WithStringItems()), pRegex, pMatchCase,
		mcp.WithInteger("max_lines"))
	return t, withRequest(handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		j, err := d.lookupJob(ctx, p.Str("job_id"))
		if err != nil {
			return nil, err
		}
		keep, err := tooldef.Positive(p, "max_lines", jobDefaultLines)
		if err != nil {
			return nil, err
		}
		patterns, _, err := waitPatterns(p)
		if err != nil {
			return nil, err
		}
		_, wait := p["timeout"]
		if !wait {
			if patterns != nil {
				return nil, tooldef.BadArg("patterns", "need a timeout to wait for")
			}
			v, err := viewJob(ctx, j, keep)
			if err != nil {
				return nil, err
			}
			return structured(v)
		}
		timeout, err := d.timeoutArg(p, 0)
		if err != nil {
			return nil, err
		}
		v, err := awaitJob(ctx, j, timeout, patterns, keep)
		if err != nil {
			return nil, err
		}
		return structured(v)
	}))
}

// awaitJob waits up to timeout for j to end or, with patterns, for a line
// of its output to match one (wait_for_text's rules; the whole output
// since the job started counts).
func awaitJob(ctx context.Context, j *jobs.Job, timeout time.Duration, patterns []drive.LinePattern, keep int) (jobResult, error) {
	prog := startProgress(ctx, requestOf(ctx), timeout, "waiting for job "+j.ID())
	defer prog.stop()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var feed *drive.Feed
	if srv := j.Server(); patterns != nil && j.Running() && srv != nil {
		feed = drive.WatchPane(ctx, srv, j.Record().Pane, drive.MinPoll)
		defer feed.Close()
	}
	check := func(timedOut bool) (jobResult, bool, error) {
		v, all, err := viewJobAll(ctx, j, keep)
		if err != nil {
			return v, false, err
		}
		for _, lp := range patterns {
			v.MatchedLines = append(v.MatchedLines, drive.Matching(lp, all)...)
		}
		v.MatchedLines, _, _ = capture.CapTail(v.MatchedLines, drive.WaitTailLines, drive.WaitTailBytes)
		switch {
		case v.State != jobrecord.Running:
			v.Outcome = "ended"
		case len(v.MatchedLines) > 0:
			v.Outcome = "matched"
		case timedOut:
			v.Outcome = "timeout"
		default:
			return v, false, nil
		}
		return v, true, nil
	}
	if v, done, err := check(false); err != nil || done {
		return v, err
	}
	var later <-chan time.Time
	for {
		var changes <-chan struct{}
		if feed != nil {
			changes = feed.C
		}
		select {
		case <-ctx.Done():
			return jobResult{}, ctx.Err()
		case <-deadline.C:
			v, _, err := check(true)
			return v, err
		case <-j.Done():
		case _, ok := <-changes:
			if !ok {
				feed.Reopen(ctx)
			}
			if later == nil {
				later = time.After(drive.CheckSpacing)
			}
			continue
		case <-later:
			later = nil
		}
		if v, done, err := check(false); err != nil || done {
			return v, err
		}
	}
}

// listResult is list_jobs' result.
type listResult struct {
	Jobs    []jobItem `json:"jobs"`
	Matched int       `json:"matched"`
	LeftOut int       `json:"left_out"`
}

// jobItemSchema is a job in list_jobs.
var jobItemSchema = tooldef.Record(tField, []string{"job_id", "state"}, map[string]any{"exit_status": tIntNull})

// ListJobs lists the jobs, newest first.
func ListJobs(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("list_jobs", "Background jobs, newest first, without output (get_job).",
		tooldef.Read, tooldef.Record(tInt, []string{"matched", "left_out"}, map[string]any{
			"jobs": map[string]any{"type": "array", "items": jobItemSchema}}),

		mcp.WithString("state", mcp.Enum(jobrecord.Running, jobrecord.Exited, jobrecord.Lost)), pSessionName, pSocket,
		pFilters, mcp.WithInteger("limit"))
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		a, err := tooldef.ParseListArgs(p, 50)
		if err != nil {
			return nil, err
		}
		filters, limit := a.Filters, a.Limit
		var sock *tmux.Socket
		if p.Str("socket_name") != "" {
			s, err := d.socket(p)
			if err != nil {
				return nil, err
			}
			sock = &s
		}
		all := d.jobs.All()
		slices.Reverse(all)
		var items []jobItem
		caller := taskext.OwnerOf(ctx)
		for _, j := range all {
			j.AwaitVerified(ctx)
			rec := j.Record()
			switch {
			case !listsJob(caller, rec),
				p.Str("state") != "" && rec.State != p.Str("state"),
				p.Str("session_name") != "" && rec.SessionName != p.Str("session_name"),
				sock != nil && rec.Socket.ResolvedPath() != sock.ResolvedPath():
				continue
			}
			items = append(items, listItem(rec))
		}
		pg, err := tooldef.Paginate(items, filters, limit, false)
		if err != nil {
			return nil, err
		}
		return pageResult(listResult{Jobs: pg.Items, Matched: pg.Matched, LeftOut: pg.LeftOut}, pg.LeftOut, pg.Matched,
			"the oldest; raise limit")
	})
}

// stopStep is one step of stop_job.
type stopStep struct {
	Signal string  `json:"signal"`
	Target string  `json:"target"`
	Ended  bool    `json:"ended"`
	Waited float64 `json:"waited_seconds"`
}

// stopResult is stop_job's result: the job after the steps.
type stopResult struct {
	jobItem
	Steps []stopStep `json:"steps"`
}

var stopSchema = tooldef.Record(tField, []string{"job_id", "state", "steps"}, map[string]any{"exit_status": tIntNull})

// StopJob ends a job: C-c first, then SIGTERM, then SIGKILL to its
// processes, each step given grace seconds to end it.
func StopJob(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("stop_job", "Stop a job: C-c, then SIGTERM, then SIGKILL to its processes; reports each step.",
		tooldef.Create, stopSchema,
		mcp.WithString("job_id", mcp.Required()), mcp.WithNumber("grace"))
	return t, withRequest(handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		j, err := d.lookupJob(ctx, p.Str("job_id"))
		if err != nil {
			return nil, err
		}
		grace := 3.0
		if v, ok := p.Number("grace"); ok {
			grace = v
		}
		if grace <= 0 || grace > 30 {
			return nil, tooldef.BadArg("grace", "want more than 0 and at most 30 seconds")
		}
		steps, err := d.stopJob(ctx, j, time.Duration(grace*float64(time.Second)))
		if err != nil {
			return nil, err
		}
		return structured(stopResult{jobItem: listItem(j.Record()), Steps: steps})
	}))
}

// stopJob runs stop_job's steps (jobs.Job.Stop) until j ends, with
// progress while they last; its C-c goes into the pane as send_keys types.
func (d Deps) stopJob(ctx context.Context, j *jobs.Job, grace time.Duration) ([]stopStep, error) {
	steps := []stopStep{}
	if j.Record().Kind == jobrecord.KindCall {
		// An MCP task's call: cancelling it is all there is to do.
		done, err := j.Stop(ctx, grace, nil)
		for _, s := range done {
			steps = append(steps, stopStep{Signal: s.Signal, Target: s.Target, Ended: s.Ended, Waited: seconds(s.Waited)})
		}
		return steps, err
	}
	srv := j.Server()
	if !j.Running() || srv == nil {
		return steps, nil
	}
	prog := startProgress(ctx, requestOf(ctx), 3*grace, "stopping job "+j.ID())
	defer prog.stop()
	rec := j.Record()
	done, err := j.Stop(ctx, grace, func(ctx context.Context) error {
		unlock, err := d.panes.lock(ctx, rec.Socket, rec.Pane)
		if err != nil {
			return err
		}
		defer unlock()
		return drive.Keystroke{Keys: "C-c"}.Send(ctx, srv, rec.Pane)
	})
	for _, s := range done {
		steps = append(steps, stopStep{Signal: s.Signal, Target: s.Target, Ended: s.Ended, Waited: seconds(s.Waited)})
	}
	return steps, err
}
