package guard

import (
	"context"
	"slices"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Marks says which pane, windows and sessions of one server hold
// tmux-mcp. inTmux false means tmux-mcp found no sign of running in tmux
// (neither TMUX in its environment nor a pane of this server): is_caller
// is then null.
type Marks struct {
	inTmux   bool
	panes    []tmux.PaneID
	windows  map[tmux.WindowID]bool
	sessions map[tmux.SessionID]bool
	rows     []tmux.Pane
}

// PaneIn returns the caller's pane that a window or session holds.
func (m Marks) PaneIn(window tmux.WindowID, session tmux.SessionID) tmux.PaneID {
	for _, r := range m.rows {
		if window != "" && r.WindowID == window || session != "" && r.SessionID == session {
			return r.ID
		}
	}
	return ""
}

// Marks finds the caller on srv's server: its panes (OwnPanesOn), and the
// windows and sessions that hold them now.
func (g Guard) Marks(ctx context.Context, srv *supervisor.Server) (Marks, error) {
	own, err := g.OwnPanesOn(ctx, srv, true)
	if err != nil {
		return Marks{}, err
	}
	m := Marks{inTmux: len(own.Panes) > 0 || g.Caller.InTmux() || HopCallersOf(ctx).Here(), panes: own.Panes,
		windows: map[tmux.WindowID]bool{}, sessions: map[tmux.SessionID]bool{}, rows: own.Rows}
	for _, r := range own.Rows {
		m.windows[r.WindowID] = true
		m.sessions[r.SessionID] = true
	}
	return m, nil
}

func (m Marks) mark(b bool) *bool {
	if !m.inTmux {
		return nil
	}
	return &b
}

// IsPane, IsWindow and IsSession are is_caller for a pane, a window and a
// session: nil when not inside tmux.
func (m Marks) IsPane(id tmux.PaneID) *bool {
	return m.mark(id != "" && slices.Contains(m.panes, id))
}
func (m Marks) IsWindow(id tmux.WindowID) *bool   { return m.mark(m.windows[id]) }
func (m Marks) IsSession(id tmux.SessionID) *bool { return m.mark(m.sessions[id]) }

// HoldsWindow and HoldsSession report whether a window or a session
// holds one of the caller's panes now.
func (m Marks) HoldsWindow(id tmux.WindowID) bool   { return m.windows[id] }
func (m Marks) HoldsSession(id tmux.SessionID) bool { return m.sessions[id] }

// LearnOwn makes sure srv's server has been looked at, so that IsCaller
// answers for its panes.
func (g Guard) LearnOwn(ctx context.Context, srv *supervisor.Server) error {
	_, _, err := g.OwnPaneOn(ctx, srv, false)
	return err
}

// IsCaller says whether id is the pane tmux-mcp runs in, by what was
// learnt of sock's server (LearnOwn); for a server not looked at yet, by
// the environment: same pane ID and the same socket, by real path. nil
// when not inside tmux.
func (g Guard) IsCaller(id tmux.PaneID, sock tmux.Socket) *bool {
	if c, ok := g.Own.known(sock); ok {
		return Marks{inTmux: c.pane != "" || g.Caller.InTmux(), panes: []tmux.PaneID{c.pane}}.IsPane(id)
	}
	if !g.Caller.InTmux() {
		return nil
	}
	b := g.Caller.Pane == id && samePath(g.Caller.SocketPath, sock.ResolvedPath())
	return &b
}
