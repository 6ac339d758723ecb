package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// ListWindows lists the windows of a session, or of the whole server.
func ListWindows(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("list_windows", "List windows of a session, or of the server.", tooldef.Read, pageOf("result", tooldef.WithCaller(windowSchema)),
		pSessionName, pSessionID, pSocket, pFilters, pLimitItems)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, la, err := d.listOnServer(ctx, p, listLimit)
		if err != nil {
			return nil, err
		}
		var only tmux.SessionID
		if p.Str("session_id") != "" || p.Str("session_name") != "" {
			s, err := findSession(ctx, srv, p)
			if err != nil {
				return nil, err
			}
			only = s.ID
		}
		windows, err := srv.ListWindows(ctx)
		if err != nil {
			return nil, err
		}
		m, err := d.guard().Marks(ctx, srv)
		if err != nil {
			return nil, err
		}
		out := []WindowInfo{}
		for _, w := range windows {
			if only == "" || w.SessionID == only {
				info := windowInfo(w)
				info.IsCaller = m.IsWindow(w.ID)
				out = append(out, info)
			}
		}
		pg, err := tooldef.Paginate(out, la.Filters, la.Limit, false)
		if err != nil {
			return nil, err
		}
		return listPage(pg, "raise limit")
	})
}

// GetSessionInfo describes one session.
func GetSessionInfo(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("get_session_info", "Describe a session.", tooldef.Read, sessionSchema,
		pSessionID, pSessionName, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, s, err := d.session(ctx, p)
		if err != nil {
			return nil, err
		}
		return d.sessionResult(ctx, srv, s)
	})
}

// CreateWindow creates a window in a session.
func CreateWindow(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("create_window", "Create a window.", tooldef.Create, windowSchema,
		pSessionName, pSessionID,
		mcp.WithString("window_name"),
		mcp.WithString("start_directory"),
		mcp.WithBoolean("attach"),
		mcp.WithString("direction", mcp.Enum("before", "after")),
		pSocket, pEnvironment, pNoHistory, pRestoreCommand)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		if err := checkWindowName("window_name", p.Str("window_name")); err != nil {
			return nil, err
		}
		env, err := envVars(p)
		if err != nil {
			return nil, err
		}
		srv, s, err := d.session(ctx, p)
		if err != nil {
			return nil, err
		}
		o := supervisor.NewWindowOptions{Session: s.ID, Select: p.Bool("attach"), Name: p.Str("window_name"),
			Spawn: supervisor.Spawn{StartDir: p.Str("start_directory"), Env: env}}
		switch p.Str("direction") {
		case "before":
			o.Before = s.ActiveWindow
		case "after":
			o.After = s.ActiveWindow
		}
		wid, pane, err := srv.NewWindow(ctx, o)
		if err != nil {
			return nil, err
		}
		d.recordCreated(srv, pane, nil, p.Str("start_directory"), env, p.Bool("restore_command"))
		w, err := windowIn(ctx, srv, wid, s.ID)
		if err != nil {
			return nil, err
		}
		return d.windowResult(ctx, srv, w)
	})
}

// RenameSession renames a session.
func RenameSession(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("rename_session", "Rename a session.", tooldef.Mutate, sessionSchema,
		mcp.WithString("new_name", mcp.Required()),
		pSessionName, pSessionID, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		name := p.Str("new_name")
		if name == "" {
			return nil, tooldef.BadArg("new_name", "must not be empty")
		}
		if err := checkSessionName(name); err != nil {
			return nil, err
		}
		srv, s, err := d.session(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := srv.RenameSession(ctx, s.ID, name); err != nil {
			return nil, err
		}
		if s, err = sessionByID(ctx, srv, s.ID); err != nil {
			return nil, err
		}
		return d.sessionResult(ctx, srv, s)
	})
}

// KillSession kills one session, named explicitly.
func KillSession(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("kill_session", "Kill a session.", tooldef.Destructive, messageSchema,
		pSessionName, pSessionID, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		if p.Str("session_id") == "" && p.Str("session_name") == "" {
			return nil, refused("Refusing to kill without an explicit target. Provide session_name or session_id.")
		}
		srv, s, err := d.session(ctx, p)
		if err != nil {
			return nil, err
		}
		if m, err := d.guard().Marks(ctx, srv); err != nil {
			return nil, err
		} else if m.HoldsSession(s.ID) {
			if err := d.guard().AllowSelf(ctx, guard.SelfAct{Refusal: guard.RefuseSession,
				Ask: "kill_session would kill session " + string(s.ID) + " on tmux server " + srv.Socket().String() +
					", which holds pane " + string(m.PaneIn("", s.ID)) + " where this agent runs. Allow it?"}); err != nil {
				return nil, err
			}
		}
		if err := srv.KillSession(ctx, s.ID); err != nil {
			return nil, err
		}
		label := p.Str("session_name")
		if label == "" {
			label = p.Str("session_id")
		}
		return message("Session killed: " + label)
	})
}

// SelectWindow makes a window the active one of its session.
func SelectWindow(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("select_window", "Select a window by id, index or direction.", tooldef.Mutate, windowSchema,
		pWindowID, pWindowIndex,
		mcp.WithString("direction", mcp.Enum("next", "previous", "last")),
		pSessionName, pSessionID, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		dir := p.Str("direction")
		if p.Str("window_id") == "" && p.Str("window_index") == "" && dir == "" {
			return nil, &toolError{msg: "Provide window_id, window_index, or direction.", class: "argument"}
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		if dir == "" {
			w, err := findWindow(ctx, srv, p)
			if err != nil {
				return nil, err
			}
			if err := srv.SelectWindow(ctx, w.ID); err != nil {
				return nil, err
			}
			if w, err = windowIn(ctx, srv, w.ID, w.SessionID); err != nil {
				return nil, err
			}
			return d.windowResult(ctx, srv, w)
		}
		s, err := findSession(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		step := map[string]func(context.Context, tmux.SessionID) error{
			"next": srv.NextWindow, "previous": srv.PreviousWindow, "last": srv.LastWindow}[dir]
		if err := step(ctx, s.ID); err != nil {
			return nil, err
		}
		if s, err = sessionByID(ctx, srv, s.ID); err != nil {
			return nil, err
		}
		w, err := windowIn(ctx, srv, s.ActiveWindow, s.ID)
		if err != nil {
			return nil, err
		}
		return d.windowResult(ctx, srv, w)
	})
}
