package jobs

import (
	"context"
	"time"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Run is the command line a job typed into its pane, as package drive
// reads it (drive.Line: the line sources a file whose ending records the
// end in a pane option and signals a private wait-for channel). The
// engine never types or captures itself: it asks its Run (tests stand in
// one of their own).
type Run interface {
	// Await waits up to d for the line's channel, then reads the result:
	// with TimedOut when d passed first, with ExitStatus when the end is
	// recorded, and with neither when the channel was signalled without
	// an end recorded (a wait of an earlier tmux-mcp that tmux kept).
	Await(ctx context.Context, d time.Duration) (Result, error)
	// Result reads the end, if recorded (ExitStatus), and the output up
	// to it, or so far while the command runs.
	Result(ctx context.Context) (Result, error)
	// ClearEnd removes the recorded end, once it was read.
	ClearEnd(ctx context.Context)
	// Pane reads the pane's state; when the pane is gone the error is
	// tmux.ErrPaneNotFound (errors.Is).
	Pane(ctx context.Context) (tmux.Pane, error)
	// Watch tells when the pane may have changed, polling at most every
	// poll where no events can be had.
	Watch(ctx context.Context, poll time.Duration) Feed
}

// Result is what a read of a job's output gave (drive.LineResult).
type Result = drive.LineResult

// Feed tells when a pane may have changed.
type Feed interface {
	// Changes receives a value each time the pane may have changed. It
	// is closed when its source ends: call Reopen then.
	Changes() <-chan struct{}
	// Reopen replaces a closed source.
	Reopen(ctx context.Context)
	// Close releases the feed.
	Close()
}

// line is a job's line read through package drive: the Run the engine
// asks.
type line struct{ drive.Line }

// NewRun is the Run of l, a line typed for a job (drive.Run.Start).
func NewRun(l drive.Line) Run { return line{l} }

func (l line) Watch(ctx context.Context, poll time.Duration) Feed { return l.Line.Watch(ctx, poll) }

// resume makes the Run of a job taken over from the store, on srv, its
// server, as it is now.
func (t *Table) resume(srv *supervisor.Server, rec jobrecord.Record) Run {
	cfg := t.sup.Config()
	return line{drive.Resume(srv, rec, drive.Ceiling{Lines: cfg.MaxCaptureLines, Bytes: cfg.MaxCaptureBytes})}
}
