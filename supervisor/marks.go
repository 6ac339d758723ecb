package supervisor

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/supervisor/marks"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// PaneMarks returns what the OSC 133 marks the pane's shell printed say of
// it (package marks: at a prompt, running a command, the last command's
// status), read from its session's watcher after every byte tmux had read
// from the pane before the call (capture.Freshness.Marks), and the ended
// commands kept, oldest first. ok is false while nothing is known (no
// output since the watcher began). Where no watcher covers the pane it
// fails with an error matching capture.ErrNotWatched.
func (s *Server) PaneMarks(ctx context.Context, pane tmux.PaneID) (st marks.State, cmds []marks.Command, ok bool, err error) {
	if !validPaneID(pane) {
		return st, nil, false, fmt.Errorf("%w: pane must be a pane ID like %%3, got %q", ErrInvalidArgument, pane)
	}
	if err := s.gate(ctx); err != nil {
		return st, nil, false, err
	}
	st, ok, err = s.fresh.Marks(ctx, pane, s.sessionOf(ctx, pane))
	if err != nil || !ok {
		return st, nil, ok, err
	}
	return st, s.fresh.Commands(pane), true, nil
}
