package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// EnterCopyMode puts a pane in copy mode, optionally scrolled up.
func EnterCopyMode(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("enter_copy_mode", "Enter copy mode, optionally scrolled up.", tooldef.Create, paneSchema,
		paneTarget(mcp.WithInteger("scroll_up", mcp.Min(0), mcp.Max(1000000)))...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, x, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := d.guard().GuardPane(ctx, srv, x.ID, refuseCopyMode, "put in copy mode"); err != nil {
			return nil, err
		}
		if err := srv.CopyMode(ctx, x.ID); err != nil {
			return nil, err
		}
		if n, _ := p.Int("scroll_up"); n > 0 {
			if err := srv.ScrollUp(ctx, x.ID, n); err != nil {
				return nil, err
			}
		}
		return d.paneResult(ctx, srv, x.ID)
	})
}

// ExitCopyMode leaves copy mode (or any pane mode).
func ExitCopyMode(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("exit_copy_mode", "Leave copy mode.", tooldef.Mutate, paneSchema, paneTarget()...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, x, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		// A pane not in a mode has nothing to cancel (tmux would fail
		// with "not in a mode"): the call is idempotent.
		if x.InMode {
			if err := d.guard().GuardPane(ctx, srv, x.ID, refuseCopyMode, "take out of copy mode"); err != nil {
				return nil, err
			}
			if err := srv.CancelCopyMode(ctx, x.ID); err != nil {
				return nil, err
			}
		}
		return d.paneResult(ctx, srv, x.ID)
	})
}
