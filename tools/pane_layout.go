package tools

import (
	"context"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// selectPaneFlags maps select_pane's relative directions to select-pane.
var selectPaneFlags = map[string]string{"up": "-U", "down": "-D", "left": "-L", "right": "-R", "last": "-l"}

// SelectPane makes a pane the active one of its window.
func SelectPane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("select_pane", "Select a pane by id or direction; returns the active pane.", hintsMutate, paneSchema,
		pPaneID,
		mcp.WithString("direction", mcp.Enum("up", "down", "left", "right", "last", "next", "previous")),
		pWindowID, pWindowIndex, pSessionName, pSessionID, pSocket)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		dir := p.str("direction")
		if p.str("pane_id") == "" && dir == "" {
			return nil, &toolError{msg: "Provide either pane_id or direction.", class: "argument"}
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		if p.str("pane_id") != "" {
			x, err := findPane(ctx, srv, p)
			if err != nil {
				return nil, err
			}
			if _, err := srv.Do(ctx, "select-pane", "-t", string(x.ID)); err != nil {
				return nil, err
			}
			return d.paneResult(ctx, srv, x.ID)
		}
		panes, err := windowPanes(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		win := panes[0].WindowID
		if flag, ok := selectPaneFlags[dir]; ok {
			_, err = srv.Do(ctx, "select-pane", flag, "-t", string(win))
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
			_, err = srv.Do(ctx, "select-pane", "-t", string(panes[(cur+step)%len(panes)].ID))
		}
		if err != nil {
			return nil, err
		}
		q := params{"window_id": string(win), "socket_name": p.str("socket_name")}
		x, err := findPane(ctx, srv, q)
		if err != nil {
			return nil, err
		}
		return d.paneOut(ctx, srv, x)
	})
}

// SwapPane swaps two panes.
func SwapPane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("swap_pane", "Swap two panes; returns the source pane.", hintsCreate, paneSchema,
		mcp.WithString("source_pane_id", mcp.Required()),
		mcp.WithString("target_pane_id", mcp.Required()),
		pSocket)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		src, dst := p.str("source_pane_id"), p.str("target_pane_id")
		for name, id := range map[string]string{"source_pane_id": src, "target_pane_id": dst} {
			if !paneIDRe.MatchString(id) {
				return nil, argError(name, "want a pane ID like %%1; call list_panes")
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
		// -d: swapping is not selecting.
		if _, err := srv.Do(ctx, "swap-pane", "-d", "-s", src, "-t", dst); err != nil {
			return nil, err
		}
		return d.paneResult(ctx, srv, tmux.PaneID(src))
	})
}

// ResizePane resizes or zooms a pane.
func ResizePane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("resize_pane", "Resize a pane (cells), or zoom/unzoom it.", hintsMutate, paneSchema,
		paneTarget(
			mcp.WithInteger("height", mcp.Min(1), mcp.Max(10000)),
			mcp.WithInteger("width", mcp.Min(1), mcp.Max(10000)),
			mcp.WithBoolean("zoom"))...)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		h, hasH := p.integer("height")
		w, hasW := p.integer("width")
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
		toggle := []string{"resize-pane", "-Z", "-t", string(x.ID)}
		var cmds [][]string
		switch {
		case !hasZoom:
			args := []string{"resize-pane", "-t", string(x.ID)}
			if hasW {
				args = append(args, "-x", strconv.Itoa(w))
			}
			if hasH {
				args = append(args, "-y", strconv.Itoa(h))
			}
			cmds = append(cmds, args)
		// resize-pane -Z toggles the window's zoom (a zoomed window's
		// zoomed pane is its active one): toggle only as needed.
		case p.boolean("zoom") && x.WindowZoomed && !x.Active:
			cmds = append(cmds, toggle, toggle)
		case p.boolean("zoom") != x.WindowZoomed:
			cmds = append(cmds, toggle)
		}
		for _, args := range cmds {
			if _, err := srv.Do(ctx, args...); err != nil {
				return nil, err
			}
		}
		return d.paneResult(ctx, srv, x.ID)
	})
}
