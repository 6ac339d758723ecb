package tools

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

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
// see drive.Panes.AwaitPrompt) and checks the if_sha256 guard. Every tool that types
// (send_keys, paste_text, run_command) starts here, in this order. It
// refuses the caller's own pane (checkTypingSelf).
func (d Deps) startTyping(ctx context.Context, p tooldef.Args) (typing, error) {
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
	unlock, err := d.panes.Lock(ctx, srv.Socket(), pn.ID)
	if err != nil {
		return typing{}, err
	}
	notReady, err := d.panes.AwaitReady(ctx, srv, pn, d.readyTimeout())
	if err == nil {
		var noPrompt bool
		noPrompt, err = d.panes.AwaitPrompt(ctx, srv, pn, d.readyTimeout())
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
