package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The tools' side of package drive: what one catalog's tools share of
// it (the panes' locks, readiness and send marks), and what they hand it
// from Deps (the capture caps, progress notices).

// paneIO is drive.Panes, shared by one catalog's tools (the agent CLI
// last seen in each pane is guard.Agents', in Deps).
type paneIO struct {
	*drive.Panes
}

func newPaneIO() *paneIO { return &paneIO{Panes: drive.NewPanes()} }

// lock takes the keystroke locks of panes on sock (drive.Panes.Lock).
func (io *paneIO) lock(ctx context.Context, sock tmux.Socket, panes ...tmux.PaneID) (unlock func(), err error) {
	return io.Lock(ctx, sock, panes...)
}

// ceiling is the most one capture may hold, as the supervisor caps it.
func (d Deps) ceiling() drive.Ceiling {
	cfg := d.Sup.Config()
	return drive.Ceiling{Lines: cfg.MaxCaptureLines, Bytes: cfg.MaxCaptureBytes}
}

// markSend records where pn's output stands just before keys are sent
// to it (drive.Panes.MarkSend).
func (d Deps) markSend(ctx context.Context, srv *supervisor.Server, pn tmux.Pane) {
	d.panes.MarkSend(ctx, srv, pn, d.ceiling())
}

// forgetSend drops pane's mark (drive.Panes.ForgetSend).
func (d Deps) forgetSend(srv *supervisor.Server, pane tmux.PaneID) { d.panes.ForgetSend(srv, pane) }

// newRun prepares a run_command in pane, with a fresh nonce, whose wait
// reports progress to the call's client.
func (d Deps) newRun(srv *supervisor.Server, pane tmux.PaneID) *drive.Run {
	r := drive.NewRun(srv, pane, d.ceiling(), d.panes.Panes)
	r.Progress = callProgress
	return r
}

// callProgress reports a wait as progress notices of the call in ctx, if
// its client asked for them.
func callProgress(ctx context.Context, limit time.Duration, what string) func() {
	return startProgress(ctx, requestOf(ctx), limit, what).stop
}

// paneNotFound is the error of a pane that is not there.
func paneNotFound(id tmux.PaneID) error {
	return &toolError{msg: "Pane not found: " + string(id), class: "pane_not_found", hint: hintPanes}
}

// driveError is err, a refusal or failure of package drive, as a tool
// error; nil if err is none of them.
func driveError(err error) *toolError {
	var (
		sent  *drive.SentError
		gone  *drive.PaneGoneError
		dead  *drive.DeadError
		resp  *drive.RespawnedError
		shell *drive.ShellError
		rng   *drive.RangeError
		unsub *drive.NotSubmittedError
		cur   *drive.CursorError
	)
	switch {
	case errors.As(err, &sent):
		te := asToolError(sent.Err)
		if te == nil {
			te = &toolError{msg: sent.Err.Error(), class: "result_unknown"}
		}
		return &toolError{msg: fmt.Sprintf("the command was sent to pane %s and may have run, but its result could not be read: %s", sent.Pane, te.msg),
			class: te.class, hint: "Do not run it again before reading the pane (capture_pane, capture_since)."}
	case errors.As(err, &gone):
		return &toolError{msg: gone.Error(), class: "pane_not_found", hint: hintPanes}
	case errors.As(err, &dead) && dead.Unsent:
		return &toolError{msg: dead.Error(), class: "pane_dead", hint: "Call respawn_pane, or target another pane."}
	case errors.As(err, &dead):
		return &toolError{msg: dead.Error(), class: "pane_dead"}
	case errors.As(err, &resp):
		return &toolError{msg: resp.Error(), class: "pane_respawned"}
	case errors.As(err, &shell):
		return &toolError{msg: shell.Error(), class: "unsupported_shell", hint: "Use send_keys and wait_for_text, start sh or bash in the pane, or turn on the shell's OSC 133 marks (docs/tools.md)."}
	case errors.As(err, &rng):
		return &toolError{msg: rng.Error(), class: "argument"}
	case errors.As(err, &cur):
		return &toolError{msg: cur.Error(), class: "argument",
			hint: "Pass the cursor from the previous capture_since result, or none to start over."}
	case errors.As(err, &unsub):
		return &toolError{msg: unsub.Msg, class: "not_submitted", hint: "read the screen; submit_prompt again once the program is ready"}
	}
	return nil
}
