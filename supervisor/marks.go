package supervisor

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/supervisor/marks"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Marks is what the OSC 133 marks a pane's shell printed say of it
// (package marks).
type Marks struct {
	// Known is false while nothing is known: the pane printed nothing
	// since its session's watcher began.
	Known bool
	// State: at a prompt, running a command, the last command's status.
	State marks.State
	// Tail is what the pane printed since its last command ended.
	Tail marks.Tail
}

// PaneMarks returns what the marks in the pane's output say of it, read
// from its session's watcher after every byte tmux had read from the pane
// before the call (capture.Freshness.Marks). Where no watcher covers the
// pane it fails with an error matching capture.ErrNotWatched.
func (s *Server) PaneMarks(ctx context.Context, pane tmux.PaneID) (Marks, error) {
	if !validPaneID(pane) {
		return Marks{}, fmt.Errorf("%w: pane must be a pane ID like %%3, got %q", ErrInvalidArgument, pane)
	}
	if err := s.gate(ctx); err != nil {
		return Marks{}, err
	}
	st, tail, ok, err := s.fresh.Marks(ctx, pane, s.sessionOf(ctx, pane))
	return Marks{Known: ok, State: st, Tail: tail}, err
}

// PaneCommands returns the commands the marks say pane ran and that
// ended, oldest first (at most marks.DefaultKeep), as far as its session's
// watcher saw them. It makes no tmux call.
func (s *Server) PaneCommands(pane tmux.PaneID) []marks.Command {
	return s.fresh.Commands(pane)
}
