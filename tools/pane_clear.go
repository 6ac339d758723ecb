package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// ClearPane clears a pane's screen and its history.
func ClearPane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("clear_pane", "Reset a pane's terminal and clear its screen and scrollback.", tooldef.Mutate, messageSchema,
		paneTarget()...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, pn, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := d.guard().GuardPane(ctx, srv, pn.ID, refuseClear, "clear"); err != nil {
			return nil, err
		}
		unlock, err := d.panes.lock(ctx, srv.Socket(), pn.ID)
		if err != nil {
			return nil, err
		}
		defer unlock()
		// The reset first: with scroll-on-clear (tmux 3.3) it pushes the
		// screen into the history, which clear-history then drops.
		if err := srv.ResetTerminal(ctx, pn.ID); err != nil {
			return nil, err
		}
		if err := srv.ClearHistory(ctx, pn.ID); err != nil {
			return nil, err
		}
		return message("Pane cleared: " + string(pn.ID))
	})
}
