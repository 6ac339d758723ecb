package supervisor

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// tmux's commands on one session, typed. Each method sends one command
// through do and returns do's error as it is (see cmd_pane.go).

// RenameSession renames session (rename-session -t session -- name).
// tmux expands formats in the name; the wire keeps it literal, and "--"
// keeps a name that starts with "-" from reading as a flag.
func (s *Server) RenameSession(ctx context.Context, session tmux.SessionID, name string) error {
	_, err := s.do(ctx, "rename-session", "-t", string(session), "--", name)
	return err
}

// KillSession kills session with its windows and panes (kill-session -t
// session).
func (s *Server) KillSession(ctx context.Context, session tmux.SessionID) error {
	_, err := s.do(ctx, "kill-session", "-t", string(session))
	return err
}
