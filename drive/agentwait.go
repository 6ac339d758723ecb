package drive

import (
	"context"
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The waits for an agent CLI's screen (wait_for_agent, answer_permission).
// Each reads the agent through an AgentReader, on every change of the
// pane; the caller keeps what it needs of the readings.

// turnSettle is how long an agent must show a state other than working
// before its turn counts as ended: between two steps of a turn (a tool
// ran, the model is asked again) an agent may drop its working line for
// a moment.
const turnSettle = 500 * time.Millisecond

// answerWait is how long an answered question may take to go once its
// keys are typed.
const answerWait = 5 * time.Second

// answerSettle is how long an agent CLI that shows no question is read
// before it counts as asking nothing: one caught redrawing its question
// shows it again within that time. (Gemini CLI erases its dialog before
// it draws it again; between the two, the last prompt of its transcript,
// drawn between rules, reads as its input box: make ci once.)
const answerSettle = 1500 * time.Millisecond

// AwaitTurnEnd waits until the agent CLI in pane ends its turn (it waits
// for input or asks, for turnSettle) or exits; ErrWaitOver at deadline. A
// moment when the pane runs no known agent does not end the wait. The
// reads have the time of a tmux call, not what is left of the wait: a
// read under way at the deadline finishes (WatchUntil).
func AwaitTurnEnd(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, deadline time.Time, read AgentReader) error {
	var since time.Time
	var last agent.State
	return WatchUntil(ctx, srv, pane, deadline, func() (bool, error) {
		cur, err := ReadPane(ctx, srv, pane)
		if err != nil {
			return false, err
		}
		r, ok, err := read(ctx, cur)
		if err != nil || !ok {
			return false, err
		}
		if r.State != last {
			last, since = r.State, time.Now()
		}
		switch r.State {
		case agent.Exited:
			return true, nil
		case agent.WaitingForInput, agent.AskingPermission:
			return time.Since(since) >= turnSettle, nil
		}
		return false, nil
	})
}

// AwaitAsking reads the agent CLI in pn until it shows a question, exits
// or the pane runs none, or until it has shown none for answerSettle; ok
// is read's last answer (false: the pane runs no known agent CLI).
func AwaitAsking(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, read AgentReader) (ok bool, err error) {
	err = WatchUntil(ctx, srv, pn.ID, time.Now().Add(answerSettle), func() (bool, error) {
		var r agent.Reading
		var err error
		r, ok, err = read(ctx, pn)
		return !ok || r.State == agent.AskingPermission || r.State == agent.Exited, err
	})
	if errors.Is(err, ErrWaitOver) {
		err = nil
	}
	return ok, err
}

// AwaitAnswered waits, once an answer's keys are typed, until the agent
// CLI in pn no longer asks; ErrWaitOver when it still does after
// answerWait.
func AwaitAnswered(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, read AgentReader) error {
	return WatchUntil(ctx, srv, pn.ID, time.Now().Add(answerWait), func() (bool, error) {
		r, ok, err := read(ctx, pn)
		if err != nil || !ok {
			return false, err
		}
		return r.State != agent.AskingPermission, nil
	})
}
