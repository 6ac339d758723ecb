package tools

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// paneResult returns pane id as tmux sees it now.
func (d Deps) paneResult(ctx context.Context, srv *supervisor.Server, id tmux.PaneID) (*mcp.CallToolResult, error) {
	x, err := paneByID(ctx, srv, id)
	if err != nil {
		return nil, err
	}
	return d.paneOut(ctx, srv, x)
}

// GetPaneInfo describes one pane.
func GetPaneInfo(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("get_pane_info", "Describe a pane.", tooldef.Read, paneSchema, paneTarget()...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, x, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		return d.paneOut(ctx, srv, x)
	})
}

// FindPaneByPosition returns the pane in a corner of a window.
func FindPaneByPosition(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("find_pane_by_position", "The pane in a corner of a window.", tooldef.Read, paneSchema,
		mcp.WithString("corner", mcp.Required(), mcp.Enum("top-left", "top-right", "bottom-left", "bottom-right")),
		pWindowID, pWindowIndex, pSessionName, pSessionID, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		vert, horiz, _ := strings.Cut(p.Str("corner"), "-")
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		panes, err := windowPanes(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		var best *tmux.Pane
		for i, x := range panes {
			if (vert == "top" && !x.AtTop) || (vert == "bottom" && !x.AtBottom) ||
				(horiz == "left" && !x.AtLeft) || (horiz == "right" && !x.AtRight) {
				continue
			}
			if best == nil || x.Left+x.Top > best.Left+best.Top {
				best = &panes[i]
			}
		}
		if best == nil {
			return nil, notFound("no pane at the "+p.Str("corner")+" of window "+string(panes[0].WindowID), "pane_not_found")
		}
		return d.paneOut(ctx, srv, *best)
	})
}

// SetPaneTitle sets a pane's title.
func SetPaneTitle(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("set_pane_title", "Set a pane's title (literal text).", tooldef.Mutate, paneSchema,
		paneTarget(mcp.WithString("title", mcp.Required()))...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, x, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := srv.SetPaneTitle(ctx, x.ID, p.Str("title")); err != nil {
			return nil, err
		}
		return d.paneResult(ctx, srv, x.ID)
	})
}
