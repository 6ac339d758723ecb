package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Results that mark the caller: is_caller on a session, a window or a
// pane, as package guard finds the caller's panes.

// sessionResult is s as a tool result, is_caller marked.
func (d Deps) sessionResult(ctx context.Context, srv *supervisor.Server, s tmux.Session) (*mcp.CallToolResult, error) {
	m, err := d.guard().Marks(ctx, srv)
	if err != nil {
		return nil, err
	}
	info := sessionInfo(s)
	info.IsCaller = m.IsSession(s.ID)
	return structured(info)
}

// windowResult is w as a tool result, is_caller marked.
func (d Deps) windowResult(ctx context.Context, srv *supervisor.Server, w tmux.Window) (*mcp.CallToolResult, error) {
	m, err := d.guard().Marks(ctx, srv)
	if err != nil {
		return nil, err
	}
	info := windowInfo(w)
	info.IsCaller = m.IsWindow(w.ID)
	return structured(info)
}

// paneOut is x as a tool result, is_caller marked.
func (d Deps) paneOut(ctx context.Context, srv *supervisor.Server, x tmux.Pane) (*mcp.CallToolResult, error) {
	if err := d.guard().LearnOwn(ctx, srv); err != nil {
		return nil, err
	}
	info := []PaneInfo{d.paneInfo(x, srv.Socket())}
	if err := d.withAgents(ctx, srv, []tmux.Pane{x}, info); err != nil {
		return nil, err
	}
	if err := d.markCallers(ctx, srv, info); err != nil {
		return nil, err
	}
	return structured(info[0])
}

// markCallers sets is_caller on infos, panes of srv's server, for a call
// routed here from this machine: true for its callers' panes (and this
// process's own), false for the others.
func (d Deps) markCallers(ctx context.Context, srv *supervisor.Server, infos []PaneInfo) error {
	if !guard.HopCallersOf(ctx).Here() {
		return nil
	}
	own, err := d.guard().OwnPanesOn(ctx, srv, false)
	if err != nil {
		return err
	}
	for i := range infos {
		b := own.Has(tmux.PaneID(infos[i].PaneID))
		infos[i].IsCaller = &b
	}
	return nil
}
