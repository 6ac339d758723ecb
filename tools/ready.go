package tools

import (
	"bytes"
	"context"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// awaitReady waits until a pane is ready for keys, at most
// d.readyTimeout(): shells such as zsh discard what is typed while they
// start, so keys sent to a pane created a moment ago can be lost. A pane is
// ready once it has printed something or its cursor has left the origin
// (as tmuxp checks), or it shows the alternate screen or a mode. Each
// process is checked until it is ready or has had its wait once. pn is the
// pane's state as just read; awaitReady reports whether the wait timed
// out.
func (d Deps) awaitReady(ctx context.Context, srv *supervisor.Server, pn tmux.Pane) (timedOut bool, err error) {
	key := readyKey{paneKey{srv.Socket(), pn.ID}, pn.PID}
	if d.panes.isReady(key) {
		return false, nil
	}
	ready, err := paneReady(ctx, srv, pn)
	if err != nil || ready {
		if ready {
			d.panes.markReady(key)
		}
		return false, err
	}
	feed := watchPane(ctx, srv, pn.ID, minPoll)
	defer feed.close()
	deadline := time.NewTimer(d.readyTimeout())
	defer deadline.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-deadline.C:
			d.panes.markReady(key) // it had its chance; do not make every send wait
			return true, nil
		case _, ok := <-feed.C:
			if !ok {
				feed.reopen(ctx)
			}
		}
		if pn, err = readPane(ctx, srv, pn.ID); err != nil {
			return false, err
		}
		if ready, err = paneReady(ctx, srv, pn); err != nil {
			return false, err
		}
		key.pid = pn.PID // a respawned pane is a new process to wait for
		if ready {
			d.panes.markReady(key)
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
	c, err := srv.Capture(ctx, screenRequest(pn.ID))
	if err != nil {
		return false, err
	}
	return len(bytes.TrimSpace(c.Content)) > 0, nil
}

// typing is a pane made ready for what a tool types into it.
type typing struct {
	srv      *supervisor.Server
	pane     tmux.Pane
	notReady bool // the readiness wait timed out
	unlock   func()
}

// startTyping prepares the pane p targets for keystrokes: it resolves the
// pane, takes its keystroke lock (release it with unlock), waits until the
// pane is ready (and shows the prompt a run_command left it waiting for,
// see awaitPrompt) and checks the if_sha256 guard. Every tool that types
// (send_keys, paste_text, run_command) starts here, in this order. It
// refuses the caller's own pane (checkTypingSelf).
func (d Deps) startTyping(ctx context.Context, p params) (typing, error) {
	want, err := guardArg(p)
	if err != nil {
		return typing{}, err
	}
	srv, pn, err := d.pane(ctx, p)
	if err != nil {
		return typing{}, err
	}
	if err := d.checkTyping(ctx, srv, pn, p); err != nil {
		return typing{}, err
	}
	unlock, err := d.panes.lock(ctx, srv.Socket(), pn.ID)
	if err != nil {
		return typing{}, err
	}
	notReady, err := d.awaitReady(ctx, srv, pn)
	if err == nil {
		var noPrompt bool
		noPrompt, err = d.awaitPrompt(ctx, srv, pn)
		notReady = notReady || noPrompt
	}
	if err == nil {
		err = checkScreen(ctx, srv, pn.ID, want)
	}
	if err != nil {
		unlock()
		return typing{}, err
	}
	return typing{srv: srv, pane: pn, notReady: notReady, unlock: unlock}, nil
}
