package capture

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/supervisor/marks"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Marks returns what the OSC 133 marks in pane's output say of it (package
// marks): its session's watcher reads every %output, and a barrier after
// the call began proves every byte tmux had read from the pane before
// then was scanned. Known is false when the pane printed nothing since
// the watcher began. A pane no watcher can cover (an
// exec-only server, the watcher bound) fails with ErrNotWatched. The tail
// is what the pane printed since its last command ended.
func (f *Freshness) Marks(ctx context.Context, pane tmux.PaneID, sess tmux.SessionID) (marks.Read, error) {
	if err := f.unwatchable(ctx); err != nil {
		return marks.Read{}, err
	}
	if sess == "" {
		return marks.Read{}, paneNotFound(pane)
	}
	w := f.watch(ctx, sess)
	if w == nil {
		return marks.Read{}, ErrNotWatched
	}
	ps, err := w.barrier(ctx)
	if err != nil {
		return marks.Read{}, err
	}
	if _, ok := ps[pane]; !ok {
		f.forgetPane(pane)
		f.marks.Forget(string(pane))
		return marks.Read{}, paneNotFound(pane)
	}
	if _, ok := f.marks.State(string(pane)); !ok {
		return marks.Read{}, nil
	}
	tail, st := f.marks.Tail(string(pane))
	return marks.Read{Known: true, State: st, Tail: tail}, nil
}

// Commands returns the commands the marks say pane ran and that ended,
// oldest first, as far as the watcher saw them (see Marks).
func (f *Freshness) Commands(pane tmux.PaneID) []marks.Command {
	return f.marks.Commands(string(pane))
}
