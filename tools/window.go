package tools

import (
	"context"
	"regexp"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// windowTarget is the window targeting every window tool takes.
func windowTarget(opts ...mcp.ToolOption) []mcp.ToolOption {
	return append(opts, pWindowID, pWindowIndex, pSessionName, pSessionID, pSocket)
}

// refreshed returns w as tmux sees it now, or a not-found error.
func (d Deps) refreshed(ctx context.Context, srv *supervisor.Server, w tmux.Window) (*mcp.CallToolResult, error) {
	w, err := windowIn(ctx, srv, w.ID, w.SessionID)
	if err != nil {
		return nil, err
	}
	return d.windowResult(ctx, srv, w)
}

// GetWindowInfo describes one window.
func GetWindowInfo(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("get_window_info", "Describe a window.", tooldef.Read, windowSchema,
		windowTarget()...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, w, err := d.window(ctx, p)
		if err != nil {
			return nil, err
		}
		return d.windowResult(ctx, srv, w)
	})
}

// RenameWindow renames a window.
func RenameWindow(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("rename_window", "Rename a window.", tooldef.Mutate, windowSchema,
		windowTarget(mcp.WithString("new_name", mcp.Required()))...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		name := p.Str("new_name")
		if name == "" {
			return nil, tooldef.BadArg("new_name", "must not be empty")
		}
		if err := checkWindowName("new_name", name); err != nil {
			return nil, err
		}
		srv, w, err := d.window(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := srv.RenameWindow(ctx, w.ID, name); err != nil {
			return nil, err
		}
		return d.refreshed(ctx, srv, w)
	})
}

// KillWindow kills one window, named by ID.
func KillWindow(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("kill_window", "Kill a window.", tooldef.Destructive, messageSchema,
		mcp.WithString("window_id", mcp.Required()), pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		id := p.Str("window_id")
		if !windowIDRe.MatchString(id) {
			return nil, tooldef.BadArg("window_id", "want a window ID like @1; call list_windows")
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		w, err := windowByID(ctx, srv, tmux.WindowID(id))
		if err != nil {
			return nil, err
		}
		if m, err := d.guard().Marks(ctx, srv); err != nil {
			return nil, err
		} else if m.HoldsWindow(w.ID) {
			if err := d.guard().AllowSelf(ctx, guard.SelfAct{Refusal: guard.RefuseWindow,
				Ask: "kill_window would kill window " + string(w.ID) + " on tmux server " + srv.Socket().String() +
					", which holds pane " + string(m.PaneIn(w.ID, "")) + " where this agent runs. Allow it?"}); err != nil {
				return nil, err
			}
		}
		if err := srv.KillWindow(ctx, tmux.WindowID(id)); err != nil {
			return nil, err
		}
		return message("Window killed: " + id)
	})
}

// layoutPresets are tmux's preset layouts.
var layoutPresets = []string{"even-horizontal", "even-vertical", "main-horizontal", "main-horizontal-mirrored",
	"main-vertical", "main-vertical-mirrored", "tiled"}

// customLayoutRe matches the start of a layout string as window_layout
// prints it ("b25f,80x24,0,0,2"). tmux 3.3a segfaults on select-layout
// with a string that does not start with a hex checksum ("x", "tiledx"),
// so nothing else reaches tmux.
var customLayoutRe = regexp.MustCompile(`^[0-9a-fA-F]{4},[0-9]+x[0-9]+,[0-9]+,[0-9]+`)

const layoutsHint = "even-horizontal, even-vertical, main-horizontal, main-horizontal-mirrored, main-vertical, main-vertical-mirrored, tiled, or a layout string from window_layout"

// SelectLayout applies a layout to a window.
func SelectLayout(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("select_layout", "Apply a layout: tiled, even-horizontal, main-vertical, ... or a window_layout string.", tooldef.Mutate, windowSchema,
		windowTarget(mcp.WithString("layout", mcp.Required()))...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		layout := p.Str("layout")
		if !slices.Contains(layoutPresets, layout) && !customLayoutRe.MatchString(layout) {
			return nil, tooldef.BadArg("layout", "want %s", layoutsHint)
		}
		srv, w, err := d.window(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := srv.SelectLayout(ctx, w.ID, layout); err != nil {
			if te := asToolError(err); te != nil && te.hint == "" {
				te.hint = "Valid layouts: " + layoutsHint + "."
				return nil, te
			}
			return nil, err
		}
		return d.refreshed(ctx, srv, w)
	})
}

// ResizeWindow sets a window's size.
func ResizeWindow(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("resize_window", "Resize a window (cells).", tooldef.Mutate, windowSchema,
		windowTarget(
			mcp.WithInteger("height", mcp.Min(1), mcp.Max(10000)),
			mcp.WithInteger("width", mcp.Min(1), mcp.Max(10000)))...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		h, hasH := p.Int("height")
		wd, hasW := p.Int("width")
		if !hasH && !hasW {
			return nil, &toolError{msg: "Provide height or width.", class: "argument"}
		}
		srv, w, err := d.window(ctx, p)
		if err != nil {
			return nil, err
		}
		if !hasW {
			wd = 0 // left as it is
		}
		if !hasH {
			h = 0
		}
		if err := srv.ResizeWindow(ctx, w.ID, wd, h); err != nil {
			return nil, err
		}
		return d.refreshed(ctx, srv, w)
	})
}

// MoveWindow moves a window to another index or session.
func MoveWindow(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("move_window", "Move a window to another index and/or session.", tooldef.Mutate, windowSchema,
		windowTarget(
			mcp.WithString("destination_index"),
			mcp.WithString("destination_session"))...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		idx := p.Str("destination_index")
		if idx != "" && !indexRe.MatchString(idx) {
			return nil, tooldef.BadArg("destination_index", "want a non-negative integer")
		}
		srv, w, err := d.window(ctx, p)
		if err != nil {
			return nil, err
		}
		dst := w.SessionID
		if ds := p.Str("destination_session"); ds != "" {
			q := tooldef.Args{"session_name": ds}
			if sessionIDRe.MatchString(ds) {
				q = tooldef.Args{"session_id": ds}
			}
			s, err := findSession(ctx, srv, q)
			if err != nil {
				return nil, err
			}
			dst = s.ID
		}
		if err := srv.MoveWindow(ctx, w.ID, dst, idx); err != nil {
			return nil, err
		}
		w2, err := windowIn(ctx, srv, w.ID, dst)
		if err != nil {
			return nil, err
		}
		return d.windowResult(ctx, srv, w2)
	})
}
