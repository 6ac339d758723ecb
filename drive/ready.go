package drive

import (
	"bytes"
	"context"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// AwaitReady waits until a pane is ready for keys, at most
// timeout: shells such as zsh discard what is typed while they
// start, so keys sent to a pane created a moment ago can be lost. A pane is
// ready once it has printed something or its cursor has left the origin
// (as tmuxp checks), or it shows the alternate screen or a mode. Each
// process is checked until it is ready or has had its wait once. pn is the
// pane's state as just read; AwaitReady reports whether the wait timed
// out.
func (io *Panes) AwaitReady(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, timeout time.Duration) (timedOut bool, err error) {
	key := readyKey{PaneKey{srv.Socket(), pn.ID}, pn.PID}
	if io.isReady(key) {
		return false, nil
	}
	ready, err := paneReady(ctx, srv, pn)
	if err != nil || ready {
		if ready {
			io.markReady(key)
		}
		return false, err
	}
	feed := WatchPane(ctx, srv, pn.ID, MinPoll)
	defer feed.Close()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-deadline.C:
			io.markReady(key) // it had its chance; do not make every send wait
			return true, nil
		case _, ok := <-feed.C:
			if !ok {
				feed.Reopen(ctx)
			}
		}
		if pn, err = ReadPane(ctx, srv, pn.ID); err != nil {
			return false, err
		}
		if ready, err = paneReady(ctx, srv, pn); err != nil {
			return false, err
		}
		key.pid = pn.PID // a respawned pane is a new process to wait for
		if ready {
			io.markReady(key)
			return false, nil
		}
	}
}

// paneReady reports whether pn has shown signs of life. Only a pane whose
// cursor sits at the origin with no history costs a capture (from cache
// when unchanged).
func paneReady(ctx context.Context, srv *supervisor.Server, pn tmux.Pane) (bool, error) {
	if pn.Dead || pn.CursorX > 0 || pn.CursorY > 0 || pn.HistorySize > 0 || pn.AlternateOn || pn.InMode {
		return true, nil
	}
	c, err := srv.Capture(ctx, supervisor.CaptureRequest{Pane: pn.ID}) // the screen, as if_sha256 sees it
	if err != nil {
		return false, err
	}
	return len(bytes.TrimSpace(c.Content)) > 0, nil
}
