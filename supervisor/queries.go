package supervisor

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// ListSessions returns the server's sessions (the hidden one left out).
func (s *Server) ListSessions(ctx context.Context) ([]tmux.Session, error) {
	return query(ctx, s, "list-sessions", s.client.ListSessions)
}

// ListWindows returns every window of every session.
func (s *Server) ListWindows(ctx context.Context) ([]tmux.Window, error) {
	return query(ctx, s, "list-windows", s.client.ListWindows)
}

// ListPanes returns every pane of every session.
func (s *Server) ListPanes(ctx context.Context) ([]tmux.Pane, error) {
	panes, err := query(ctx, s, "list-panes", s.client.ListPanes)
	if err == nil {
		s.fresh.LearnPanes(panes)
	}
	return panes, err
}

// Pane returns one pane as ListPanes would, reading only its window (see
// tmux.Client.Pane).
func (s *Server) Pane(ctx context.Context, id tmux.PaneID) (tmux.Pane, error) {
	if !validPaneID(id) {
		return tmux.Pane{}, fmt.Errorf("%w: pane must be a pane ID like %%3, got %q", ErrInvalidArgument, id)
	}
	p, err := query(ctx, s, "list-panes", func(ctx context.Context) (tmux.Pane, error) {
		return s.client.Pane(ctx, id)
	})
	if err == nil {
		s.fresh.NotePane(p)
	}
	return p, err
}

// ListPanesWith is ListPanes reading only the named fields (and pane_id,
// session_id and session_name); see tmux.Client.ListPanesWith.
func (s *Server) ListPanesWith(ctx context.Context, names ...string) ([]tmux.Pane, error) {
	panes, err := query(ctx, s, "list-panes", func(ctx context.Context) ([]tmux.Pane, error) {
		return s.client.ListPanesWith(ctx, names...)
	})
	if err == nil {
		s.fresh.LearnPanes(panes)
	}
	return panes, err
}

// Info returns the server's identity.
func (s *Server) Info(ctx context.Context) (tmux.ServerInfo, error) {
	return query(ctx, s, "display-message", s.client.Info)
}

// sessionOf returns the session pane belongs to, for the watcher that
// may prove a capture of it: "" when no watcher may (exec-only, tmux
// before 3.3) or the pane is unknown. It lists panes once (ListPanes,
// which the freshness learns from) when the pane is not known yet; the
// answer is a hint that the barrier checks.
func (s *Server) sessionOf(ctx context.Context, pane tmux.PaneID) tmux.SessionID {
	if !s.fresh.Watchable(ctx) {
		return ""
	}
	if sess, ok := s.fresh.SessionOf(pane); ok {
		return sess
	}
	panes, err := s.ListPanes(ctx)
	if err != nil {
		return ""
	}
	for _, p := range panes {
		if p.ID == pane {
			return p.SessionID
		}
	}
	return ""
}
