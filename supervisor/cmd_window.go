package supervisor

import (
	"context"
	"strconv"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// tmux's commands on one window, typed. Each method sends one command
// through do and returns do's error as it is (see cmd_pane.go).

// RenameWindow renames window (rename-window -t window -- name). tmux
// expands formats in the name; the wire keeps it literal, and "--" keeps
// a name that starts with "-" from reading as a flag.
func (s *Server) RenameWindow(ctx context.Context, window tmux.WindowID, name string) error {
	_, err := s.do(ctx, "rename-window", "-t", string(window), "--", name)
	return err
}

// KillWindow kills window and its panes (kill-window -t window).
func (s *Server) KillWindow(ctx context.Context, window tmux.WindowID) error {
	_, err := s.do(ctx, "kill-window", "-t", string(window))
	return err
}

// SelectWindow makes window the current window of its session
// (select-window -t window).
func (s *Server) SelectWindow(ctx context.Context, window tmux.WindowID) error {
	_, err := s.do(ctx, "select-window", "-t", string(window))
	return err
}

// NextWindow makes the window after session's current one current
// (next-window -t session).
func (s *Server) NextWindow(ctx context.Context, session tmux.SessionID) error {
	_, err := s.do(ctx, "next-window", "-t", string(session))
	return err
}

// PreviousWindow makes the window before session's current one current
// (previous-window -t session).
func (s *Server) PreviousWindow(ctx context.Context, session tmux.SessionID) error {
	_, err := s.do(ctx, "previous-window", "-t", string(session))
	return err
}

// LastWindow makes session's previously current window current again
// (last-window -t session).
func (s *Server) LastWindow(ctx context.Context, session tmux.SessionID) error {
	_, err := s.do(ctx, "last-window", "-t", string(session))
	return err
}

// SelectLayout applies layout, a preset name (tiled, main-vertical, ...)
// or a layout string as window_layout prints it, to window
// (select-layout -t window layout). The caller checks the layout: tmux
// 3.3a crashes on a layout string without a valid checksum.
func (s *Server) SelectLayout(ctx context.Context, window tmux.WindowID, layout string) error {
	_, err := s.do(ctx, "select-layout", "-t", string(window), layout)
	return err
}

// ResizeWindow sets window's width and height in cells (resize-window -t
// window -x width -y height); a size of 0 or less is left as it is.
func (s *Server) ResizeWindow(ctx context.Context, window tmux.WindowID, width, height int) error {
	args := []string{"resize-window", "-t", string(window)}
	if width > 0 {
		args = append(args, "-x", strconv.Itoa(width))
	}
	if height > 0 {
		args = append(args, "-y", strconv.Itoa(height))
	}
	_, err := s.do(ctx, args...)
	return err
}

// MoveWindow moves window to session at index, a window index in decimal,
// or "" for the first free one (move-window -s window -t session:index).
func (s *Server) MoveWindow(ctx context.Context, window tmux.WindowID, session tmux.SessionID, index string) error {
	_, err := s.do(ctx, "move-window", "-s", string(window), "-t", string(session)+":"+index)
	return err
}
