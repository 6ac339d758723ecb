package tools

import (
	"context"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// ListPanes lists panes of a window, a session, or the whole server.
func ListPanes(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("list_panes", "List panes of a window, else a session, else the server.",
		tooldef.Read, pageOf("result", paneSchema),
		pSessionName, pSessionID, pWindowID, pWindowIndex, pSocket, pFilters, pLimitItems)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, la, err := d.listOnServer(ctx, p, listLimit)
		if err != nil {
			return nil, err
		}
		keep := func(tmux.Pane) bool { return true }
		switch {
		case p.Str("window_id") != "" || p.Str("window_index") != "":
			w, err := findWindow(ctx, srv, p)
			if err != nil {
				return nil, err
			}
			keep = func(x tmux.Pane) bool { return x.WindowID == w.ID && x.SessionID == w.SessionID }
		case p.Str("session_id") != "" || p.Str("session_name") != "":
			s, err := findSession(ctx, srv, p)
			if err != nil {
				return nil, err
			}
			keep = func(x tmux.Pane) bool { return x.SessionID == s.ID }
		}
		panes, err := srv.ListPanesWith(ctx, paneInfoFields...)
		if err != nil {
			return nil, err
		}
		if err := d.guard().LearnOwn(ctx, srv); err != nil {
			return nil, err
		}
		out := []PaneInfo{}
		var kept []tmux.Pane
		for _, x := range panes {
			if keep(x) {
				kept = append(kept, x)
				out = append(out, d.paneInfo(x, srv.Socket()))
			}
		}
		if err := d.withAgents(ctx, srv, kept, out); err != nil {
			return nil, err
		}
		if err := d.markCallers(ctx, srv, out); err != nil {
			return nil, err
		}
		pg, err := tooldef.Paginate(out, la.Filters, la.Limit, false)
		if err != nil {
			return nil, err
		}
		return listPage(pg, "raise limit, or scope by window or session")
	})
}

// SplitWindow splits a pane or window, creating a pane.
func SplitWindow(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("split_window", "Split a pane; returns the new pane.", tooldef.Create, paneSchema,
		mcp.WithString("pane_id"),
		pSessionName, pSessionID, pWindowID, pWindowIndex,
		mcp.WithString("direction", mcp.Enum("above", "below", "left", "right")),
		mcp.WithString("size"),
		mcp.WithString("start_directory"),
		mcp.WithString("shell"),
		pSocket, pEnvironment, pNoHistory, pRestoreCommand)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		size, err := sizeArg(p)
		if err != nil {
			return nil, err
		}
		env, err := envVars(p)
		if err != nil {
			return nil, err
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		o := supervisor.SplitOptions{Size: size, Spawn: supervisor.Spawn{StartDir: p.Str("start_directory"), Env: env}}
		if id := p.Str("pane_id"); id != "" {
			if !paneIDRe.MatchString(id) {
				return nil, tooldef.BadArg("pane_id", "want a pane ID like %%1; call list_panes")
			}
			if _, err := paneByID(ctx, srv, tmux.PaneID(id)); err != nil {
				return nil, err
			}
			o.Pane = tmux.PaneID(id)
		} else {
			w, err := findWindow(ctx, srv, p)
			if err != nil {
				return nil, err
			}
			o.Window = w.ID
		}
		switch p.Str("direction") {
		case "above":
			o.Before = true
		case "left":
			o.Horizontal, o.Before = true, true
		case "right":
			o.Horizontal = true
		}
		var argv []string
		if sh := p.Str("shell"); sh != "" {
			argv = []string{sh} // one argument: tmux runs it with the shell
			o.Command = sh
		}
		id, err := srv.SplitWindow(ctx, o)
		if err != nil {
			return nil, err
		}
		d.recordCreated(srv, id, argv, p.Str("start_directory"), env, p.Bool("restore_command"))
		np, err := paneByID(ctx, srv, id)
		if err != nil {
			return nil, err
		}
		return d.paneOut(ctx, srv, np)
	})
}

// sizeArg validates size: a positive cell count or a percentage 1-100.
func sizeArg(p tooldef.Args) (string, error) {
	v, ok := p["size"]
	if !ok {
		return "", nil
	}
	bad := tooldef.BadArg("size", `want a positive number of cells or a percentage like "50%%"`)
	switch x := v.(type) {
	case int:
		if x < 1 {
			return "", bad
		}
		return strconv.Itoa(x), nil
	case string:
		num, pct := strings.CutSuffix(strings.TrimSpace(x), "%")
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 || (pct && n > 100) {
			return "", bad
		}
		if pct {
			return strconv.Itoa(n) + "%", nil
		}
		return strconv.Itoa(n), nil
	}
	return "", bad
}
