package capture

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// PaneChanges subscribes to pane's changes on the watcher of its session,
// or, where no watcher can cover the pane, on a pipe feed.
func (f *Freshness) PaneChanges(ctx context.Context, pane tmux.PaneID, sess tmux.SessionID) (<-chan struct{}, func(), error) {
	if err := f.unwatchable(ctx); err != nil {
		return f.pipeChanges(ctx, pane, err)
	}
	if sess == "" {
		return nil, nil, paneNotFound(pane)
	}
	w := f.watch(ctx, sess)
	if w == nil {
		return f.pipeChanges(ctx, pane, ErrNotWatched)
	}
	// The barrier shows the watcher covers the pane now; everything after
	// it reaches the subscription.
	sub := &paneSub{ch: make(chan struct{}, 1)}
	if !w.subscribe(pane, sub) {
		return nil, nil, ErrNotWatched
	}
	st, err := w.barrier(ctx)
	if err != nil {
		w.unsubscribe(pane, sub)
		return nil, nil, err
	}
	if _, ok := st[pane]; !ok {
		w.unsubscribe(pane, sub)
		f.forgetPane(pane)
		return nil, nil, paneNotFound(pane)
	}
	stopCtx := context.AfterFunc(ctx, func() { w.unsubscribe(pane, sub) })
	stop := func() {
		stopCtx()
		w.unsubscribe(pane, sub)
	}
	return sub.ch, stop, nil
}

// pipeChanges subscribes to pane's changes on a pipe feed; why is the
// reason no watcher covers it, returned when no feed can be had either.
func (f *Freshness) pipeChanges(ctx context.Context, pane tmux.PaneID, why error) (<-chan struct{}, func(), error) {
	if f.pipes == nil {
		return nil, nil, why
	}
	ch, stop, err := f.pipes.subscribe(ctx, pane)
	if errors.Is(err, tmux.ErrPaneNotFound) || errors.Is(err, tmux.ErrNotFound) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w (%w)", why, err)
	}
	return ch, stop, nil
}

func paneNotFound(pane tmux.PaneID) error {
	return &tmux.CommandError{Args: []string{"list-panes"}, Stderr: "can't find pane: " + string(pane),
		ExitCode: 1, Class: tmux.ErrPaneNotFound}
}
