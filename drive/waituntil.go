package drive

import (
	"context"
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// A wait's deadline and the tmux calls it makes. A wait that handed its
// own deadline to its reads would see that deadline run out inside a
// tmux call now and then (the control connection refuses a command whose
// deadline has passed by the clock a moment before the context's timer
// says so, all the more on a loaded machine), and report a hung server
// ([timeout]) where its own time was up. So the reads of a wait get the
// time of a tmux call (the request's context; the supervisor bounds each
// call), and the wait checks its deadline between them: a read under way
// at the deadline finishes, and the state it read is the one reported.
// Where the wait is itself one tmux call (wait-for), a deadline error
// once the deadline has passed is the wait timing out (PastDeadline).

// CheckEvery is how often WatchUntil checks besides the pane's changes.
const CheckEvery = 50 * time.Millisecond

// ErrWaitOver is WatchUntil's error when the wait's deadline came before
// check reported done.
var ErrWaitOver = errors.New("tools: the wait's time is up")

// WatchUntil calls check each time pane may have changed and every
// CheckEvery, until it reports done, fails, ctx ends, or deadline
// passes (ErrWaitOver, once the check under way has returned). check
// reads with a context of its own that is not bounded by the deadline.
func WatchUntil(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, deadline time.Time, check func() (bool, error)) error {
	feed := WatchPane(ctx, srv, pane, MinPoll)
	defer feed.Close()
	tick := time.NewTicker(CheckEvery)
	defer tick.Stop()
	over := time.NewTimer(time.Until(deadline))
	defer over.Stop()
	for {
		done, err := check()
		if err != nil || done {
			return err
		}
		if !time.Now().Before(deadline) {
			return ErrWaitOver
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-over.C:
			return ErrWaitOver
		case <-tick.C:
		case _, ok := <-feed.C:
			if !ok {
				feed.Reopen(ctx)
			}
		}
	}
}

// PastDeadline reports whether err is a tmux call (or a wait) that ran
// out of time at or after deadline: a call bounded by the wait's own
// deadline, which is the wait timing out, not a slow server. A context's
// timer can fire a little after its deadline, so the clock decides, not
// only the context.
func PastDeadline(err error, deadline time.Time) bool {
	return err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, tmux.ErrTimeout)) &&
		!time.Now().Before(deadline)
}
