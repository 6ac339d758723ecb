package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// turnSettle is how long an agent must show a state other than working
// before wait_for_agent takes its turn for ended: between two steps of a
// turn (a tool ran, the model is asked again) an agent may drop its
// working line for a moment.
const turnSettle = 500 * time.Millisecond

// answerWait is how long answer_permission waits for the question to go
// once its keys are typed.
const answerWait = 5 * time.Second

// answerSettle is how long answer_permission reads an agent CLI that
// shows no question before it refuses: one caught redrawing its question
// shows it again within that time. (Gemini CLI erases its dialog before
// it draws it again; between the two, the last prompt of its transcript,
// drawn between rules, reads as its input box: make ci once.)
const answerSettle = 1500 * time.Millisecond

// agentTurnSchema is wait_for_agent's and answer_permission's result.
var agentTurnSchema = record(tField, []string{"pane_id", "agent", "answer", "timed_out"}, nil)

// agentTurn is wait_for_agent's result.
type agentTurn struct {
	PaneID string     `json:"pane_id"`
	Agent  *AgentInfo `json:"agent"`
	// Answer is the screen above the agent's input area from the last
	// prompt it shows: its reply, as far as the screen holds it.
	Answer   string  `json:"answer"`
	TimedOut bool    `json:"timed_out"`
	Elapsed  float64 `json:"elapsed_seconds"`
}

// WaitForAgent waits until the agent CLI in a pane ends its turn, asks a
// question, or exits.
func WaitForAgent(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("wait_for_agent",
		"Wait for a pane's agent CLI to end its turn, ask, or exit.",
		hintsRead, agentTurnSchema, paneTarget(pTimeout)...)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		start := time.Now()
		timeout, err := d.timeoutArg(p, 60)
		if err != nil {
			return nil, err
		}
		srv, pn, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		if _, ok, err := d.guard().AgentIn(ctx, srv, pn); err != nil {
			return nil, err
		} else if !ok {
			return nil, &toolError{class: "no_agent",
				msg:  fmt.Sprintf("pane %s runs no known agent CLI (%s is in the foreground)", pn.ID, pn.CurrentCommand),
				hint: "wait_for_text waits for other programs"}
		}
		// The reads have the time of a tmux call, not what is left of
		// the wait: a read under way at the wait's end finishes, and its
		// state is the one reported (a deadline running out in a tmux
		// call is the wait's timeout, never a hung server).
		out := agentTurn{PaneID: string(pn.ID)}
		var since time.Time
		var last agent.State
		err = drive.WatchUntil(ctx, srv, pn.ID, start.Add(timeout), func() (bool, error) {
			cur, err := drive.ReadPane(ctx, srv, pn.ID)
			if err != nil {
				return false, err
			}
			info, r, err := d.readAgent(ctx, srv, cur)
			if err != nil || info == nil {
				return false, err
			}
			out.Agent, out.Answer = info, r.Answer
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
		switch {
		case errors.Is(err, drive.ErrWaitOver):
			out.TimedOut = true
		case err != nil:
			return nil, err
		}
		out.Elapsed = time.Since(start).Seconds()
		return structured(out)
	})
}

// AnswerPermission answers the permission question an agent CLI in a
// pane is asking.
func AnswerPermission(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("answer_permission",
		"Answer a pane's agent CLI's permission question.",
		hintsShell, agentTurnSchema,
		paneTarget(mcp.WithString("answer", mcp.Required(), mcp.Enum(string(agent.Yes), string(agent.YesAlways), string(agent.No))),
			pAllowAttended)...)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		start := time.Now()
		srv, pn, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := d.guard().CheckTypingSelf(ctx, srv, pn.ID); err != nil {
			return nil, err
		}
		// Answering is the point of the call: the agent needs no second
		// argument, a person at the pane does.
		if err := d.guard().CheckAttended(ctx, srv, pn, p.boolean("allow_attended"), ""); err != nil {
			return nil, err
		}
		// The answer's keys reach the panes synchronized with this one
		// too: another agent or a person there is guarded as for any
		// typing (an answer takes no allow_agent for them).
		reached, err := guard.ReachedPanes(ctx, srv, pn)
		if err != nil {
			return nil, err
		}
		own, _, err := d.guard().OwnPaneOn(ctx, srv, false)
		if err != nil {
			return nil, err
		}
		for _, q := range reached[1:] {
			if q.ID == own {
				continue // CheckTypingSelf decided
			}
			if err := d.guard().CheckDriven(ctx, srv, q, false, p.boolean("allow_attended"), guard.ViaSync(pn, q)); err != nil {
				return nil, err
			}
		}
		unlock, err := d.panes.lock(ctx, srv.Socket(), pn.ID)
		if err != nil {
			return nil, err
		}
		defer unlock()
		info, r, err := d.askingAgent(ctx, srv, pn)
		if err != nil {
			return nil, err
		}
		if info == nil {
			return nil, &toolError{class: "no_agent", msg: fmt.Sprintf("pane %s runs no known agent CLI", pn.ID)}
		}
		if r.State != agent.AskingPermission {
			return nil, &toolError{class: "not_asking",
				msg:  fmt.Sprintf("%s in pane %s is not asking anything (it is %s); nothing was typed", info.Name, pn.ID, r.State),
				hint: "wait_for_agent returns when it asks"}
		}
		keys, ok := agent.Keys(agent.Name(info.Name), agent.Answer(p.str("answer")))
		if !ok {
			return nil, argError("answer", "%s offers no %s", info.Name, p.str("answer"))
		}
		d.markSend(ctx, srv, pn)
		if err := srv.TypeKeys(ctx, pn.ID, keys...); err != nil {
			return nil, err
		}
		out := agentTurn{PaneID: string(pn.ID)}
		err = drive.WatchUntil(ctx, srv, pn.ID, time.Now().Add(answerWait), func() (bool, error) {
			a, r, err := d.readAgent(ctx, srv, pn)
			if err != nil || a == nil {
				return false, err
			}
			out.Agent, out.Answer = a, r.Answer
			return r.State != agent.AskingPermission, nil
		})
		if errors.Is(err, drive.ErrWaitOver) {
			return nil, &toolError{class: "not_answered",
				msg: fmt.Sprintf("%s typed into pane %s, but %s still asks:\n%s", keyNames(keys), pn.ID, info.Name, r.Question)}
		}
		if err != nil {
			return nil, err
		}
		out.Elapsed = time.Since(start).Seconds()
		return structured(out)
	})
}

// askingAgent reads the agent CLI in pn until it shows a question, or
// until it has shown none for answerSettle; the last reading is
// returned (a nil info: pn runs no known agent CLI).
func (d Deps) askingAgent(ctx context.Context, srv *supervisor.Server, pn tmux.Pane) (*AgentInfo, agent.Reading, error) {
	var info *AgentInfo
	var r agent.Reading
	err := drive.WatchUntil(ctx, srv, pn.ID, time.Now().Add(answerSettle), func() (bool, error) {
		var err error
		info, r, err = d.readAgent(ctx, srv, pn)
		return info == nil || r.State == agent.AskingPermission || r.State == agent.Exited, err
	})
	if errors.Is(err, drive.ErrWaitOver) {
		err = nil
	}
	return info, r, err
}

// keyNames says which keys were typed.
func keyNames(keys []string) string {
	return fmt.Sprintf("%q", keys)
}
