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
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// agentTurnSchema is wait_for_agent's and answer_permission's result.
var agentTurnSchema = tooldef.Record(tField, []string{"pane_id", "agent", "answer", "timed_out"}, nil)

// agentTurn is wait_for_agent's result.
type agentTurn struct {
	PaneID string     `json:"pane_id"`
	Agent  *AgentInfo `json:"agent"`
	// Answer is the screen above the agent's input area from the last
	// prompt it shows: its reply, as far as the screen holds it.
	Answer   string  `json:"answer"`
	TimedOut bool    `json:"timed_out"`
	Elapsed  float64 `json:"elapsed_seconds"`
	// reading is the last reading of Agent's screen.
	reading agent.Reading
}

// WaitForAgent waits until the agent CLI in a pane ends its turn, asks a
// question, or exits.
func WaitForAgent(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("wait_for_agent",
		"Wait for a pane's agent CLI to end its turn, ask, or exit.",
		tooldef.Read, agentTurnSchema, paneTarget(pTimeout)...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
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
		// A deadline running out in a tmux call is the wait's timeout,
		// never a hung server (drive.AwaitTurnEnd).
		out := agentTurn{PaneID: string(pn.ID)}
		err = drive.AwaitTurnEnd(ctx, srv, pn.ID, start.Add(timeout), d.agentReader(srv, &out))
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
	t := tooldef.New("answer_permission",
		"Answer a pane's agent CLI's permission question.",
		tooldef.Shell, agentTurnSchema,
		paneTarget(mcp.WithString("answer", mcp.Required(), mcp.Enum(string(agent.Yes), string(agent.YesAlways), string(agent.No))),
			pAllowAttended)...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
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
		if err := d.guard().CheckAttended(ctx, srv, pn, p.Bool("allow_attended"), ""); err != nil {
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
			if err := d.guard().CheckDriven(ctx, srv, q, false, p.Bool("allow_attended"), guard.ViaSync(pn, q)); err != nil {
				return nil, err
			}
		}
		unlock, err := d.panes.lock(ctx, srv.Socket(), pn.ID)
		if err != nil {
			return nil, err
		}
		defer unlock()
		var asked agentTurn
		found, err := drive.AwaitAsking(ctx, srv, pn, d.agentReader(srv, &asked))
		if err != nil {
			return nil, err
		}
		info, r := asked.Agent, asked.reading
		if !found {
			return nil, &toolError{class: "no_agent", msg: fmt.Sprintf("pane %s runs no known agent CLI", pn.ID)}
		}
		if r.State != agent.AskingPermission {
			return nil, &toolError{class: "not_asking",
				msg:  fmt.Sprintf("%s in pane %s is not asking anything (it is %s); nothing was typed", info.Name, pn.ID, r.State),
				hint: "wait_for_agent returns when it asks"}
		}
		keys, ok := agent.Keys(agent.Name(info.Name), agent.Answer(p.Str("answer")))
		if !ok {
			return nil, tooldef.BadArg("answer", "%s offers no %s", info.Name, p.Str("answer"))
		}
		d.markSend(ctx, srv, pn)
		if err := srv.TypeKeys(ctx, pn.ID, keys...); err != nil {
			return nil, err
		}
		out := agentTurn{PaneID: string(pn.ID)}
		err = drive.AwaitAnswered(ctx, srv, pn, d.agentReader(srv, &out))
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

// agentReader reads a pane's agent CLI for the waits of package drive
// and keeps in out the last agent seen, its answer and its reading.
func (d Deps) agentReader(srv *supervisor.Server, out *agentTurn) drive.AgentReader {
	return func(ctx context.Context, pn tmux.Pane) (agent.Reading, bool, error) {
		info, r, err := d.readAgent(ctx, srv, pn)
		if err != nil || info == nil {
			return r, false, err
		}
		out.Agent, out.Answer, out.reading = info, r.Answer, r
		return r, true, nil
	}
}

// keyNames says which keys were typed.
func keyNames(keys []string) string {
	return fmt.Sprintf("%q", keys)
}
