package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// ListWindows lists the windows of a session, or of the whole server.
func ListWindows(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("list_windows", "List windows of a session, or of the server.", hintsRead, pageOf("result", withCaller(windowSchema)),
		pSessionName, pSessionID, pSocket, pFilters, pLimitItems)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		srv, la, err := d.listOnServer(ctx, p, listLimit)
		if err != nil {
			return nil, err
		}
		var only tmux.SessionID
		if p.str("session_id") != "" || p.str("session_name") != "" {
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
		pg, err := paginate(out, la.filters, la.limit, false)
		if err != nil {
			return nil, err
		}
		return listPage(pg, "raise limit")
	})
}

// GetSessionInfo describes one session.
func GetSessionInfo(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("get_session_info", "Describe a session.", hintsRead, sessionSchema,
		pSessionID, pSessionName, pSocket)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		srv, s, err := d.session(ctx, p)
		if err != nil {
			return nil, err
		}
		return d.sessionResult(ctx, srv, s)
	})
}

// CreateWindow creates a window in a session.
func CreateWindow(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("create_window", "Create a window.", hintsCreate, windowSchema,
		pSessionName, pSessionID,
		mcp.WithString("window_name"),
		mcp.WithString("start_directory"),
		mcp.WithBoolean("attach"),
		mcp.WithString("direction", mcp.Enum("before", "after")),
		pSocket, pEnvironment, pNoHistory, pRestoreCommand)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		if err := checkWindowName("window_name", p.str("window_name")); err != nil {
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
		o := supervisor.NewWindowOptions{Session: s.ID, Select: p.boolean("attach"), Name: p.str("window_name"),
			Spawn: supervisor.Spawn{StartDir: p.str("start_directory"), Env: env}}
		switch p.str("direction") {
		case "before":
			o.Before = s.ActiveWindow
		case "after":
			o.After = s.ActiveWindow
		}
		wid, pane, err := srv.NewWindow(ctx, o)
		if err != nil {
			return nil, err
		}
		d.recordCreated(srv, pane, nil, p.str("start_directory"), env, p.boolean("restore_command"))
		w, err := windowIn(ctx, srv, wid, s.ID)
		if err != nil {
			return nil, err
		}
		return d.windowResult(ctx, srv, w)
	})
}

// RenameSession renames a session.
func RenameSession(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("rename_session", "Rename a session.", hintsMutate, sessionSchema,
		mcp.WithString("new_name", mcp.Required()),
		pSessionName, pSessionID, pSocket)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		name := p.str("new_name")
		if name == "" {
			return nil, argError("new_name", "must not be empty")
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
	t := newTool("kill_session", "Kill a session.", hintsDestructive, messageSchema,
		pSessionName, pSessionID, pSocket)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		if p.str("session_id") == "" && p.str("session_name") == "" {
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
		label := p.str("session_name")
		if label == "" {
			label = p.str("session_id")
		}
		return message("Session killed: " + label)
	})
}

// SelectWindow makes a window the active one of its session.
func SelectWindow(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("select_window", "Select a window by id, index or direction.", hintsMutate, windowSchema,
		pWindowID, pWindowIndex,
		mcp.WithString("direction", mcp.Enum("next", "previous", "last")),
		pSessionName, pSessionID, pSocket)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		dir := p.str("direction")
		if p.str("window_id") == "" && p.str("window_index") == "" && dir == "" {
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
