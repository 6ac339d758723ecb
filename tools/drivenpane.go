package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// A pane someone else drives (another agent CLI, or a person at a
// terminal) takes keys only when the caller says it means to: each tool
// that types has these two arguments, and refuses such a pane without
// them.
var (
	pAllowAgent    = mcp.WithBoolean("allow_agent")
	pAllowAttended = mcp.WithBoolean("allow_attended")
)

// attendedWithin is how recent a key from an attached client must be for
// its pane to count as a person's: a person who typed in the last two
// minutes is still at it, or reading what came back.
const attendedWithin = 2 * time.Minute

// checkTyping is the check every tool that types into pane pn makes
// before it types: the caller's own pane (checkTypingSelf), and a pane
// someone else drives (checkDriven) unless p allows it.
func (d Deps) checkTyping(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, p params) error {
	if err := d.checkTypingSelf(ctx, srv, pn.ID); err != nil {
		return err
	}
	own, err := d.ownPanesOn(ctx, srv, false)
	if err != nil {
		return err
	}
	if own.has(pn.ID) {
		return nil // allowed above; the agent running there is the caller
	}
	return d.checkDriven(ctx, srv, pn, p.boolean("allow_agent"), p.boolean("allow_attended"))
}

// checkDriven refuses pane pn when another agent CLI runs in it
// (checkAgentPane) or a person works in it (checkAttended).
func (d Deps) checkDriven(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, allowAgent, allowAttended bool) error {
	if err := d.checkAgentPane(ctx, srv, pn, allowAgent); err != nil {
		return err
	}
	return d.checkAttended(ctx, srv, pn, allowAttended)
}

// checkAgentPane refuses pane pn when another agent CLI runs in it
// (unless allowAgent), or when that agent asks a permission question
// (always: answer_permission answers it; nothing types into it by the
// way).
func (d Deps) checkAgentPane(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, allowAgent bool) error {
	pa, ok, err := d.agentIn(ctx, srv, pn)
	if err != nil {
		return err
	}
	switch {
	case !ok || pa.exited:
	case !allowAgent:
		return &toolError{class: "agent_pane",
			msg: fmt.Sprintf("pane %s runs %s, an agent CLI (process %d): typing into it needs allow_agent: true (send_keys, paste_text, submit_prompt take it)",
				pn.ID, pa.name, pa.pid),
			hint: "submit_prompt types a prompt and checks it was submitted; wait_for_agent waits for its turn; answer_permission answers its question"}
	default:
		lines, err := paneScreen(ctx, srv, pn.ID)
		if err != nil {
			return err
		}
		if r := agent.Read(pa.name, lines); r.State == agent.AskingPermission {
			return &toolError{class: "asking_permission",
				msg:  fmt.Sprintf("%s in pane %s is asking a question; keys typed now would answer it:\n%s", pa.name, pn.ID, r.Question),
				hint: "answer_permission answers it"}
		}
	}
	return nil
}

// checkAttended refuses pane pn, unless allowAttended, when a person works
// in it: a client attached to its session shows it as the active pane
// and sent a key within attendedWithin. tmux-mcp's own clients are
// control clients and never count.
func (d Deps) checkAttended(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, allowAttended bool) error {
	if allowAttended {
		return nil
	}
	clients, err := srv.ListClients(ctx)
	if err != nil {
		return err
	}
	for _, c := range clients {
		if c.Control || c.Pane != pn.ID {
			continue
		}
		if ago := time.Since(c.Activity); ago < attendedWithin {
			return &toolError{class: "attended_pane",
				msg: fmt.Sprintf("a person is working in pane %s: terminal %s shows it and typed %s ago; typing into it needs allow_attended: true",
					pn.ID, c.TTY, ago.Round(time.Second)),
				hint: "ask the person first, or use another pane"}
		}
	}
	return nil
}
