package supervisor

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// tmux's commands on one pane, typed. Each method sends one command
// through do (the gates, the rate limits, the deadline and the span of
// every call apply) and returns do's error as it is, so errors.Is on the
// supervisor's and tmux's sentinels works on it. An argument tmux expands
// as a format (a title, a pipe command) is kept literal by the wire.

// KillPane kills pane (kill-pane -t pane).
func (s *Server) KillPane(ctx context.Context, pane tmux.PaneID) error {
	_, err := s.do(ctx, "kill-pane", "-t", string(pane))
	return err
}

// SelectPane makes pane the active pane of its window (select-pane -t
// pane).
func (s *Server) SelectPane(ctx context.Context, pane tmux.PaneID) error {
	_, err := s.do(ctx, "select-pane", "-t", string(pane))
	return err
}

// PaneDirection is where SelectPaneToward moves from a window's active
// pane.
type PaneDirection string

// The directions of select-pane.
const (
	PaneUp    PaneDirection = "up"
	PaneDown  PaneDirection = "down"
	PaneLeft  PaneDirection = "left"
	PaneRight PaneDirection = "right"
	PaneLast  PaneDirection = "last" // the window's previously active pane
)

// flag returns select-pane's flag for d, or "" for a direction it has
// none for.
func (d PaneDirection) flag() string {
	switch d {
	case PaneUp:
		return "-U"
	case PaneDown:
		return "-D"
	case PaneLeft:
		return "-L"
	case PaneRight:
		return "-R"
	case PaneLast:
		return "-l"
	}
	return ""
}

// SelectPaneToward makes the pane in direction dir from window's active
// pane the active one (select-pane -U|-D|-L|-R|-l -t window). An unknown
// direction is an ErrInvalidArgument and reaches no tmux.
func (s *Server) SelectPaneToward(ctx context.Context, window tmux.WindowID, dir PaneDirection) error {
	flag := dir.flag()
	if flag == "" {
		return fmt.Errorf("%w: unknown pane direction %q", ErrInvalidArgument, dir)
	}
	_, err := s.do(ctx, "select-pane", flag, "-t", string(window))
	return err
}

// SetPaneTitle sets pane's title (select-pane -t pane -T title). tmux
// expands formats in the title; the wire keeps it literal.
func (s *Server) SetPaneTitle(ctx context.Context, pane tmux.PaneID, title string) error {
	_, err := s.do(ctx, "select-pane", "-t", string(pane), "-T", title)
	return err
}

// SwapPanes swaps panes src and dst without selecting either (swap-pane
// -d -s src -t dst).
func (s *Server) SwapPanes(ctx context.Context, src, dst tmux.PaneID) error {
	_, err := s.do(ctx, "swap-pane", "-d", "-s", string(src), "-t", string(dst))
	return err
}

// ResizePane sets pane's width and height in cells (resize-pane -t pane
// -x width -y height); a size of 0 or less is left as it is.
func (s *Server) ResizePane(ctx context.Context, pane tmux.PaneID, width, height int) error {
	args := []string{"resize-pane", "-t", string(pane)}
	if width > 0 {
		args = append(args, "-x", strconv.Itoa(width))
	}
	if height > 0 {
		args = append(args, "-y", strconv.Itoa(height))
	}
	_, err := s.do(ctx, args...)
	return err
}

// ToggleZoom zooms pane's window on pane, or unzooms a zoomed window
// (resize-pane -Z -t pane). A zoomed window's zoomed pane is its active
// one.
func (s *Server) ToggleZoom(ctx context.Context, pane tmux.PaneID) error {
	_, err := s.do(ctx, "resize-pane", "-Z", "-t", string(pane))
	return err
}

// ResetTerminal resets pane's terminal state (send-keys -R -t pane):
// modes, attributes and the screen. With scroll-on-clear (tmux 3.3) the
// screen goes into the history.
func (s *Server) ResetTerminal(ctx context.Context, pane tmux.PaneID) error {
	_, err := s.do(ctx, "send-keys", "-R", "-t", string(pane))
	return err
}

// ClearHistory drops pane's history (clear-history -t pane).
func (s *Server) ClearHistory(ctx context.Context, pane tmux.PaneID) error {
	_, err := s.do(ctx, "clear-history", "-t", string(pane))
	return err
}

// PipePane starts piping pane's output to command, a shell command tmux
// runs (pipe-pane -t pane command); a pipe already open is closed first.
// The caller quotes what command holds; the wire keeps it literal to
// tmux's format expansion.
func (s *Server) PipePane(ctx context.Context, pane tmux.PaneID, command string) error {
	_, err := s.do(ctx, "pipe-pane", "-t", string(pane), command)
	return err
}

// StopPipe closes pane's pipe, if it has one (pipe-pane -t pane).
func (s *Server) StopPipe(ctx context.Context, pane tmux.PaneID) error {
	_, err := s.do(ctx, "pipe-pane", "-t", string(pane))
	return err
}

// CopyMode puts pane in copy mode (copy-mode -t pane).
func (s *Server) CopyMode(ctx context.Context, pane tmux.PaneID) error {
	_, err := s.do(ctx, "copy-mode", "-t", string(pane))
	return err
}

// ScrollUp scrolls pane, in copy mode, up by lines lines (send-keys -X
// -N lines -t pane scroll-up).
func (s *Server) ScrollUp(ctx context.Context, pane tmux.PaneID, lines int) error {
	_, err := s.do(ctx, "send-keys", "-X", "-N", strconv.Itoa(lines), "-t", string(pane), "scroll-up")
	return err
}

// CancelCopyMode takes pane out of copy mode, or whatever mode it is in
// (send-keys -X -t pane cancel); tmux fails for a pane in no mode.
func (s *Server) CancelCopyMode(ctx context.Context, pane tmux.PaneID) error {
	_, err := s.do(ctx, "send-keys", "-X", "-t", string(pane), "cancel")
	return err
}
