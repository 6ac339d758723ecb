package tools

import (
	"context"
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Shared input parameters. Their descriptions are in paramdoc.go, with
// every other parameter's.
var (
	pSocket      = mcp.WithString("socket_name")
	pSessionName = mcp.WithString("session_name")
	pSessionID   = mcp.WithString("session_id")
	pWindowID    = mcp.WithString("window_id")
	pWindowIndex = mcp.WithString("window_index")
	pPaneID      = mcp.WithString("pane_id")
	pFilters     = mcp.WithAny("filters", objectType)
	pEnvironment = mcp.WithAny("environment", objectType)
	pNoHistory   = mcp.WithBoolean("suppress_persistent_history")
)

// objectType types a property as an object without listing its
// properties (mcp.WithObject writes an empty list). It is its only type:
// some clients refuse a union such as ["object", "string"], and the JSON
// text of an object is accepted at run time instead (coerceTo).
func objectType(schema map[string]any) { schema["type"] = "object" }

// paneTarget is the targeting every pane tool takes: pane_id, else the
// active pane of the window that window_id or the session names.
func paneTarget(opts ...mcp.ToolOption) []mcp.ToolOption {
	return append(opts, pPaneID, pSessionName, pSessionID, pWindowID, pSocket)
}

// server returns the supervised server the call names (socket_name) or
// the default one. IDs in p that only a restore explains are replaced by
// the restored objects' (restoredids.go).
func (d Deps) server(ctx context.Context, p tooldef.Args) (*supervisor.Server, error) {
	sock, err := socketArg(p)
	if err != nil {
		return nil, err
	}
	var srv *supervisor.Server
	if sock == (tmux.Socket{}) {
		srv, err = d.Sup.Default(ctx)
	} else {
		srv, err = d.Sup.Server(ctx, sock)
	}
	if err != nil {
		return srv, err
	}
	if err := d.awaitRestore(ctx, srv, p); err != nil {
		return srv, err
	}
	return srv, d.resolveIDs(ctx, srv, p)
}

// supervised returns the server the supervisor already supervises on
// sock, or nil.
func (d Deps) supervised(sock tmux.Socket) *supervisor.Server {
	for _, srv := range d.Sup.Servers() {
		if srv.Socket() == sock {
			return srv
		}
	}
	return nil
}

// socket returns the server a call names with socket_name, or the default.
func (d Deps) socket(p tooldef.Args) (tmux.Socket, error) {
	sock, err := socketArg(p)
	if err == nil && sock == (tmux.Socket{}) {
		sock = d.Sup.Config().DefaultSocket
	}
	return sock, err
}

func socketArg(p tooldef.Args) (tmux.Socket, error) {
	name := p.Str("socket_name")
	if name == "" {
		return tmux.Socket{}, nil
	}
	if strings.ContainsAny(name, "/\x00") || name == "." || name == ".." || len(name) > 64 {
		return tmux.Socket{}, tooldef.BadArg("socket_name", "want a socket name as for tmux -L (no '/', at most 64 bytes)")
	}
	return tmux.Socket{Name: name}, nil
}

// sessionRef returns the session the call names: session_id, else exact
// session_name, else "" (none named).
func sessionRef(p tooldef.Args) (id tmux.SessionID, name string, err error) {
	if s := p.Str("session_id"); s != "" {
		if !sessionIDRe.MatchString(s) {
			return "", "", tooldef.BadArg("session_id", "want a session ID like $1; call list_sessions")
		}
		return tmux.SessionID(s), "", nil
	}
	return "", p.Str("session_name"), nil
}

// findSession resolves session_id > session_name > the first session.
// session resolves the server and the session the call targets.
func (d Deps) session(ctx context.Context, p tooldef.Args) (*supervisor.Server, tmux.Session, error) {
	srv, err := d.server(ctx, p)
	if err != nil {
		return nil, tmux.Session{}, err
	}
	s, err := findSession(ctx, srv, p)
	return srv, s, err
}

// window resolves the server and the window the call targets.
func (d Deps) window(ctx context.Context, p tooldef.Args) (*supervisor.Server, tmux.Window, error) {
	srv, err := d.server(ctx, p)
	if err != nil {
		return nil, tmux.Window{}, err
	}
	w, err := findWindow(ctx, srv, p)
	return srv, w, err
}

func findSession(ctx context.Context, srv *supervisor.Server, p tooldef.Args) (tmux.Session, error) {
	id, name, err := sessionRef(p)
	if err != nil {
		return tmux.Session{}, err
	}
	sessions, err := srv.ListSessions(ctx)
	if err != nil {
		return tmux.Session{}, err
	}
	for _, s := range sessions {
		if (id != "" && s.ID == id) || (id == "" && name != "" && s.Name == name) || (id == "" && name == "") {
			return s, nil
		}
	}
	switch {
	case id != "":
		return tmux.Session{}, notFound("session_id="+string(id), "session_not_found")
	case name != "":
		return tmux.Session{}, notFound("session_name="+name, "session_not_found")
	}
	return tmux.Session{}, &toolError{msg: "Object not found: no sessions exist", class: "session_not_found", hint: "Call create_session first."}
}

// findWindow resolves window_id (server-wide) > window_index in the
// resolved session > that session's first window.
func findWindow(ctx context.Context, srv *supervisor.Server, p tooldef.Args) (tmux.Window, error) {
	if id := p.Str("window_id"); id != "" {
		if !windowIDRe.MatchString(id) {
			return tmux.Window{}, tooldef.BadArg("window_id", "want a window ID like @1; call list_windows")
		}
		return windowByID(ctx, srv, tmux.WindowID(id))
	}
	idx := p.Str("window_index")
	if idx != "" && !indexRe.MatchString(idx) {
		return tmux.Window{}, tooldef.BadArg("window_index", "want a non-negative integer")
	}
	sess, err := findSession(ctx, srv, p)
	if err != nil {
		return tmux.Window{}, err
	}
	windows, err := srv.ListWindows(ctx)
	if err != nil {
		return tmux.Window{}, err
	}
	for _, w := range windows {
		if w.SessionID == sess.ID && (idx == "" || strconv.Itoa(w.Index) == idx) {
			return w, nil
		}
	}
	if idx != "" {
		return tmux.Window{}, notFound("window_index="+idx+" in session "+string(sess.ID), "window_not_found")
	}
	return tmux.Window{}, notFound("session "+string(sess.ID)+" has no windows", "window_not_found")
}

func windowByID(ctx context.Context, srv *supervisor.Server, id tmux.WindowID) (tmux.Window, error) {
	windows, err := srv.ListWindows(ctx)
	if err != nil {
		return tmux.Window{}, err
	}
	for _, w := range windows {
		if w.ID == id {
			return w, nil
		}
	}
	return tmux.Window{}, notFound("window_id="+string(id), "window_not_found")
}

// windowIn returns window id as seen from session sid (a linked window
// appears once per session).
func windowIn(ctx context.Context, srv *supervisor.Server, id tmux.WindowID, sid tmux.SessionID) (tmux.Window, error) {
	windows, err := srv.ListWindows(ctx)
	if err != nil {
		return tmux.Window{}, err
	}
	var found *tmux.Window
	for i, w := range windows {
		if w.ID == id {
			if w.SessionID == sid {
				return w, nil
			}
			if found == nil {
				found = &windows[i]
			}
		}
	}
	if found != nil {
		return *found, nil
	}
	return tmux.Window{}, notFound("window_id="+string(id), "window_not_found")
}

func sessionByID(ctx context.Context, srv *supervisor.Server, id tmux.SessionID) (tmux.Session, error) {
	sessions, err := srv.ListSessions(ctx)
	if err != nil {
		return tmux.Session{}, err
	}
	for _, s := range sessions {
		if s.ID == id {
			return s, nil
		}
	}
	return tmux.Session{}, notFound("session_id="+string(id), "session_not_found")
}

func paneByID(ctx context.Context, srv *supervisor.Server, id tmux.PaneID) (tmux.Pane, error) {
	p, err := srv.Pane(ctx, id)
	if errors.Is(err, tmux.ErrPaneNotFound) {
		return tmux.Pane{}, &toolError{msg: "Pane not found: " + string(id), class: "pane_not_found", hint: hintPanes}
	}
	return p, err
}

// pane resolves the server and the pane the call targets (findPane).
func (d Deps) pane(ctx context.Context, p tooldef.Args) (*supervisor.Server, tmux.Pane, error) {
	srv, err := d.server(ctx, p)
	if err != nil {
		return nil, tmux.Pane{}, err
	}
	x, err := findPane(ctx, srv, p)
	return srv, x, err
}

// findPane resolves pane_id (server-wide), else the active pane of the
// window windowPanes resolves. tmux picks the active pane for a window
// target too; libtmux-mcp picks the window's first pane instead.
func findPane(ctx context.Context, srv *supervisor.Server, p tooldef.Args) (tmux.Pane, error) {
	if id := p.Str("pane_id"); id != "" {
		if !paneIDRe.MatchString(id) {
			return tmux.Pane{}, tooldef.BadArg("pane_id", "want a pane ID like %%1; call list_panes")
		}
		return paneByID(ctx, srv, tmux.PaneID(id))
	}
	panes, err := windowPanes(ctx, srv, p)
	if err != nil {
		return tmux.Pane{}, err
	}
	for _, x := range panes {
		if x.Active {
			return x, nil
		}
	}
	return panes[0], nil
}

// windowPanes resolves a window with one list-panes call and returns its
// panes in index order: window_id (server-wide), else window_index in the
// session, else the session's active window; the session is session_id,
// else session_name (exact), else the first session.
func windowPanes(ctx context.Context, srv *supervisor.Server, p tooldef.Args) ([]tmux.Pane, error) {
	wid := p.Str("window_id")
	if wid != "" && !windowIDRe.MatchString(wid) {
		return nil, tooldef.BadArg("window_id", "want a window ID like @1; call list_windows")
	}
	idx := p.Str("window_index")
	if idx != "" && !indexRe.MatchString(idx) {
		return nil, tooldef.BadArg("window_index", "want a non-negative integer")
	}
	sid, name, err := sessionRef(p)
	if err != nil {
		return nil, err
	}
	panes, err := srv.ListPanes(ctx)
	if err != nil {
		return nil, err
	}
	var sess tmux.SessionID
	if wid == "" {
		for _, x := range panes {
			if (sid != "" && x.SessionID == sid) || (sid == "" && name != "" && x.SessionName == name) || (sid == "" && name == "") {
				sess = x.SessionID
				break
			}
		}
		switch {
		case sess != "":
		case sid != "":
			return nil, notFound("session_id="+string(sid), "session_not_found")
		case name != "":
			return nil, notFound("session_name="+name, "session_not_found")
		default:
			return nil, &toolError{msg: "Object not found: no sessions exist", class: "session_not_found", hint: "Call create_session first."}
		}
	}
	var out []tmux.Pane
	for _, x := range panes {
		var ok bool
		switch {
		case wid != "":
			// A linked window is listed once per session: keep one view.
			ok = x.WindowID == tmux.WindowID(wid) && (len(out) == 0 || x.SessionID == out[0].SessionID)
		case idx != "":
			ok = x.SessionID == sess && strconv.Itoa(x.WindowIndex) == idx
		default:
			ok = x.SessionID == sess && x.WindowActive
		}
		if ok {
			out = append(out, x)
		}
	}
	switch {
	case len(out) > 0:
	case wid != "":
		return nil, notFound("window_id="+wid, "window_not_found")
	case idx != "":
		return nil, notFound("window_index="+idx+" in session "+string(sess), "window_not_found")
	default:
		return nil, notFound("session "+string(sess)+" has no active window", "window_not_found")
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// The forms of tmux IDs and indexes that targets take.
var (
	sessionIDRe = regexp.MustCompile(`^\$[0-9]+$`)
	windowIDRe  = regexp.MustCompile(`^@[0-9]+$`)
	paneIDRe    = regexp.MustCompile(`^%[0-9]+$`)
	indexRe     = regexp.MustCompile(`^[0-9]+$`)
)
