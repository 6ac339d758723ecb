package drive

import (
	"context"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Line is a command line a run typed into its pane, as the jobs engine
// reads it: the run that typed it, and the pane as it was just before.
type Line struct {
	run  *Run
	base tmux.Pane
}

// LineResult is what a read of a line's output gave.
type LineResult struct {
	// Output is the command's output lines; TruncatedLines were dropped
	// before them.
	Output         []string
	TruncatedLines int
	// HistoryOverflowed: the start of the output was freed from the
	// pane's history before it could be read.
	HistoryOverflowed bool
	// ExitStatus is the status the end recorded; nil while the command
	// runs.
	ExitStatus *int
	// TimedOut: Await's wait ended before the channel was signalled.
	TimedOut bool
	// Prompted: something (the shell's prompt) shows after the end.
	Prompted bool
}

// Start types cmd at the pane's prompt (writing the file the line
// sources into files) and returns the line, for a command that runs on
// after the call (run_command with background).
func (r *Run) Start(ctx context.Context, files *Files, tmuxBin, cmd string, noHistory bool) (Line, error) {
	base, err := r.send(ctx, files, tmuxBin, cmd, noHistory)
	return Line{r, base}, err
}

// Resume is the line of a job taken over from the store, on srv, its
// server, as it is now; its captures hold at most ceiling.
func Resume(srv *supervisor.Server, rec jobrecord.Record, ceiling Ceiling) Line {
	r := NewRun(srv, rec.Pane, ceiling, nil)
	r.nonce, r.file, r.lines = rec.Nonce, rec.File, max(rec.Lines, 1)
	base := tmux.Pane{ID: rec.Pane, PID: rec.PanePID, HistorySize: rec.HistorySize, HistoryLimit: rec.HistoryLimit,
		Width: rec.Width, Height: rec.Height, CursorY: rec.CursorY}
	r.anchor = paneAnchor(base)
	return Line{r, base}
}

// Base is the pane as it was just before the line was typed.
func (l Line) Base() tmux.Pane { return l.base }

// Nonce names the line's end option and channel.
func (l Line) Nonce() string { return l.run.nonce }

// File is the file the line sources ("" if none).
func (l Line) File() string { return l.run.file }

// Lines is how many lines the command shows as, the prompt's first.
func (l Line) Lines() int { return l.run.lines }

// Await waits up to d for the line's channel, then reads the result:
// with TimedOut when d passed first, with ExitStatus when the end is
// recorded, and with neither when the channel was signalled without an
// end recorded (a wait of an earlier tmux-mcp that tmux kept).
func (l Line) Await(ctx context.Context, d time.Duration) (LineResult, error) {
	res, err := l.run.await(ctx, l.base, d)
	return lineResult(res), err
}

// Result reads the end, if recorded (ExitStatus), and the output up to
// it, or so far while the command runs.
func (l Line) Result(ctx context.Context) (LineResult, error) {
	res, _, err := l.run.result(ctx, l.base)
	return lineResult(res), err
}

// ClearEnd removes the recorded end, once it was read.
func (l Line) ClearEnd(ctx context.Context) { l.run.clearEnd(ctx) }

// Pane reads the pane's state; when the pane is gone the error is
// tmux.ErrPaneNotFound (errors.Is).
func (l Line) Pane(ctx context.Context) (tmux.Pane, error) {
	return ReadPane(ctx, l.run.srv, l.run.pane)
}

// Watch tells when the pane may have changed, polling at most every poll
// where no events can be had.
func (l Line) Watch(ctx context.Context, poll time.Duration) *Feed {
	return WatchPane(ctx, l.run.srv, l.run.pane, poll)
}

// lineResult is what the engine reads of a run's result: the exit status
// is set once the end is recorded (Run.collect).
func lineResult(res RunResult) LineResult {
	return LineResult{Output: res.Output, TruncatedLines: res.TruncatedLines, HistoryOverflowed: res.HistoryOverflowed,
		ExitStatus: res.ExitStatus, TimedOut: res.TimedOut, Prompted: res.Prompted}
}
