package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// SelectPane makes a pane the active one of its window.
func SelectPane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("select_pane", "Select a pane by id or direction; returns the active pane.", tooldef.Mutate, paneSchema,
		pPaneID,
		mcp.WithString("direction", mcp.Enum("up", "down", "left", "right", "last", "next", "previous")),
		pWindowID, pWindowIndex, pSessionName, pSessionID, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		dir := p.Str("direction")
		if p.Str("pane_id") == "" && dir == "" {
			return nil, &toolError{msg: "Provide either pane_id or direction.", class: "argument"}
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		if p.Str("pane_id") != "" {
			x, err := findPane(ctx, srv, p)
			if err != nil {
				return nil, err
			}
			if err := srv.SelectPane(ctx, x.ID); err != nil {
				return nil, err
			}
			return d.paneResult(ctx, srv, x.ID)
		}
		panes, err := windowPanes(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		win := panes[0].WindowID
		if dir != "next" && dir != "previous" {
			// up, down, left, right and last are supervisor.PaneDirections.
			err = srv.SelectPaneToward(ctx, win, supervisor.PaneDirection(dir))
		} else {
			// next and previous go by absolute ID: "-t +" would resolve
			// against a client's current window, not this one.
			cur := 0
			for i, x := range panes {
				if x.Active {
					cur = i
				}
			}
			step := 1
			if dir == "previous" {
				step = len(panes) - 1
			}
			err = srv.SelectPane(ctx, panes[(cur+step)%len(panes)].ID)
		}
		if err != nil {
			return nil, err
		}
		q := tooldef.Args{"window_id": string(win), "socket_name": p.Str("socket_name")}
		x, err := findPane(ctx, srv, q)
		if err != nil {
			return nil, err
		}
		return d.paneOut(ctx, srv, x)
	})
}

// SwapPane swaps two panes.
func SwapPane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("swap_pane", "Swap two panes; returns the source pane.", tooldef.Create, paneSchema,
		mcp.WithString("source_pane_id", mcp.Required()),
		mcp.WithString("target_pane_id", mcp.Required()),
		pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		src, dst := p.Str("source_pane_id"), p.Str("target_pane_id")
		for name, id := range map[string]string{"source_pane_id": src, "target_pane_id": dst} {
			if !paneIDRe.MatchString(id) {
				return nil, tooldef.BadArg(name, "want a pane ID like %%1; call list_panes")
			}
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		for _, id := range []string{src, dst} {
			if _, err := paneByID(ctx, srv, tmux.PaneID(id)); err != nil {
				return nil, err
			}
		}
		if err := srv.SwapPanes(ctx, tmux.PaneID(src), tmux.PaneID(dst)); err != nil {
			return nil, err
		}
		return d.paneResult(ctx, srv, tmux.PaneID(src))
	})
}

// ResizePane resizes or zooms a pane.
func ResizePane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("resize_pane", "Resize a pane (cells), or zoom/unzoom it.", tooldef.Mutate, paneSchema,
		paneTarget(
			mcp.WithInteger("height", mcp.Min(1), mcp.Max(10000)),
			mcp.WithInteger("width", mcp.Min(1), mcp.Max(10000)),
			mcp.WithBoolean("zoom"))...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		h, hasH := p.Int("height")
		w, hasW := p.Int("width")
		_, hasZoom := p["zoom"]
		switch {
		case hasZoom && (hasH || hasW):
			return nil, &toolError{msg: "Cannot combine zoom with height/width", class: "argument"}
		case !hasZoom && !hasH && !hasW:
			return nil, &toolError{msg: "Provide height, width or zoom.", class: "argument"}
		}
		srv, x, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		toggles := 0
		switch {
		case !hasZoom:
			if !hasW {
				w = 0 // left as it is
			}
			if !hasH {
				h = 0
			}
			if err := srv.ResizePane(ctx, x.ID, w, h); err != nil {
				return nil, err
			}
		// ToggleZoom toggles the window's zoom (a zoomed window's zoomed
		// pane is its active one): toggle only as needed.
		case p.Bool("zoom") && x.WindowZoomed && !x.Active:
			toggles = 2
		case p.Bool("zoom") != x.WindowZoomed:
			toggles = 1
		}
		for range toggles {
			if err := srv.ToggleZoom(ctx, x.ID); err != nil {
				return nil, err
			}
		}
		return d.paneResult(ctx, srv, x.ID)
	})
}
