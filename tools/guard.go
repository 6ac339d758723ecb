package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// The refusals of keys and actions on panes they must not reach are
// package guard's: the caller's own pane, panes synchronized with it,
// other agent CLIs' panes and panes a person works in. This file hands
// the guards what they need of Deps.

// A pane someone else drives (another agent CLI, or a person at a
// terminal) takes keys only when the caller says it means to: each tool
// that types has these two arguments, and refuses such a pane without
// them.
var (
	pAllowAgent    = mcp.WithBoolean("allow_agent")
	pAllowAttended = mcp.WithBoolean("allow_attended")
)

// guard is what the guards need of d: the caller, what the tier and the
// flags allow, and the memory one catalog shares (initGuard).
func (d Deps) guard() guard.Guard {
	return guard.Guard{
		Caller:         d.Caller,
		Destructive:    d.Tier >= Destructive,
		AllowOwnPane:   d.AllowOwnPane,
		AllowSelfInput: d.AllowSelfInput,
		Own:            d.own,
		Agents:         d.agents,
		Request:        requestOf,
		PaneTree:       jobs.PaneTree,
	}
}

// initGuard makes the guards' memory that every tool of one catalog
// shares, unless d has it already.
func (d *Deps) initGuard() {
	if d.own == nil {
		d.own = guard.NewOwnPanes(d.selfPIDs)
		d.own.Ancestors() // now, before a parent may exit and take the trail with it
	}
	if d.agents == nil {
		d.agents = &guard.Agents{}
	}
}

// checkTyping is guard.CheckTyping with the call's allow_agent and
// allow_attended: the check every tool that types into pn makes first.
func (d Deps) checkTyping(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, p tooldef.Args) error {
	return d.guard().CheckTyping(ctx, srv, pn, p.Bool("allow_agent"), p.Bool("allow_attended"))
}
