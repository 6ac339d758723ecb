package drive

import (
	"context"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// A run_command ends when its end is recorded, and waits a moment
// (promptGrace) for the shell's prompt after it. On a loaded machine the
// prompt can come later than that: the shell first waits for the tmux
// client that signalled the run's channel. Keys typed before the prompt
// shows are echoed by the terminal ahead of it, and the next run would
// read the prompt as the first line of its output. So the run that ended
// unprompted leaves a note (ExpectPrompt), and the next call that types
// into the pane waits for the prompt first (AwaitPrompt), bounded by the
// readiness timeout. A shell that shows no prompt at all (PS1 empty) has
// that wait once per process, then never again.

// promptState is what Panes knows about one process's prompt.
type promptState struct {
	// pending: a run ended with the cursor at x, y (column 0 below its
	// output) and the prompt had not shown.
	pending bool
	x, y    int
	// silent: a wait for this process's prompt once timed out; it shows
	// none that moves the cursor.
	silent bool
}

// maxPrompts bounds the prompt notes, as maxReady bounds the ready set.
const maxPrompts = 4096

// ExpectPrompt notes that the run that just ended in pn left the cursor
// where pn shows it, before the shell's prompt.
func (io *Panes) ExpectPrompt(sock tmux.Socket, pn tmux.Pane) {
	k := readyKey{PaneKey{sock, pn.ID}, pn.PID}
	io.mu.Lock()
	defer io.mu.Unlock()
	if io.prompts == nil || len(io.prompts) >= maxPrompts {
		io.prompts = map[readyKey]promptState{}
	}
	st := io.prompts[k]
	if st.silent {
		return
	}
	io.prompts[k] = promptState{pending: true, x: pn.CursorX, y: pn.CursorY}
}

// takePrompt returns and clears the pending note of k.
func (io *Panes) takePrompt(k readyKey) (promptState, bool) {
	io.mu.Lock()
	defer io.mu.Unlock()
	st, ok := io.prompts[k]
	if !ok || !st.pending {
		return promptState{}, false
	}
	io.prompts[k] = promptState{}
	return st, true
}

// markSilent notes that k's prompt did not show within a wait.
func (io *Panes) markSilent(k readyKey) {
	io.mu.Lock()
	defer io.mu.Unlock()
	if io.prompts != nil {
		io.prompts[k] = promptState{silent: true}
	}
}

// prompted reports whether pn no longer shows the cursor where a run left
// it before the prompt: the prompt (or anything else) was printed, or the
// pane is another process, dead, in a mode or on the alternate screen.
func (st promptState) prompted(pid int, pn tmux.Pane) bool {
	return pn.PID != pid || pn.Dead || pn.InMode || pn.AlternateOn || pn.CursorX != st.x || pn.CursorY != st.y
}

// AwaitPrompt waits, at most timeout, for the prompt that the
// last run_command in pn was left waiting for (see ExpectPrompt). It
// reports whether the wait timed out.
func (io *Panes) AwaitPrompt(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, timeout time.Duration) (timedOut bool, err error) {
	key := readyKey{PaneKey{srv.Socket(), pn.ID}, pn.PID}
	st, ok := io.takePrompt(key)
	if !ok {
		return false, nil
	}
	// pn may have been read before the run ended (while this call waited
	// for the pane's lock): read it again, once changes are watched.
	feed := WatchPane(ctx, srv, pn.ID, MinPoll)
	defer feed.Close()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if pn, err = ReadPane(ctx, srv, pn.ID); err != nil {
			return false, err
		}
		if st.prompted(key.pid, pn) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-deadline.C:
			io.markSilent(key)
			return true, nil
		case _, ok := <-feed.C:
			if !ok {
				feed.Reopen(ctx)
			}
		}
	}
}
