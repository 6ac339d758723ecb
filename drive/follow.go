package drive

import (
	"context"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// follow reads the lines from the first row not read yet down. It
// captures the rows where the anchor can be (see screenAnchor: just above
// the row it must be at while no history line can have been freed, two
// drops further up otherwise, and as far as the history goes if not
// there), finds the anchor there, takes the lines after it, and moves the
// anchor down to the top of the screen, so that it stays ahead of what
// tmux frees. If the anchor is gone, so are lines printed during the wait
// that were not read yet: it takes all that is left and says that history
// overflowed.
//
// The anchor is found and moved in the capture itself, not at the rows
// the pane's state gave before it, so output that scrolls in between is
// neither skipped nor read twice.
func (w *waiter) follow(ctx context.Context, pn tmux.Pane, changed bool) ([]string, tmux.Pane, error) {
	// A stale pn (see check) holds fewer lines of history than the pane
	// may now: reach a screen higher (capture-pane stops at the top of
	// the history).
	margin := 0
	if w.stale {
		margin = pn.Height
	}
	top := w.anchor.reach(pn) - margin
	if row, ok := w.anchor.settled(pn); ok {
		top = max(row-AnchorRows-pn.Height-margin, -pn.HistorySize-margin)
	}
	if len(w.anchor.fp) == 0 {
		top = -pn.HistorySize - margin
	}
	s, after, err := w.split(ctx, pn, top, changed)
	if err != nil {
		return nil, after, err
	}
	row, found := w.anchor.locate(pn, after, s.rows)
	if !found && top > -max(pn.HistorySize, after.HistorySize) {
		// Not where it can be after two drops: look through the whole
		// history.
		pn = after
		if s, after, err = w.split(ctx, pn, -pn.HistorySize, changed); err != nil {
			return nil, after, err
		}
		row, found = w.anchor.locate(pn, after, s.rows)
	}
	if w.first && (!found || !w.anchor.sameShape(pn) || !w.anchor.sameShape(after)) {
		// From a send's mark, only an exact find will do.
		w.res.HistoryOverflowed = !found && w.anchor.mayHaveDropped(after)
		return nil, after, errMarkLost
	}
	first := max(len(s.rows)-pn.Height, 0) // the index of row 0
	start := -first                        // the first row not yet read
	if found {
		start = min(max(row+w.skip, -first), pn.Height)
	} else if w.anchor.mayHaveDropped(after) {
		w.res.HistoryOverflowed = true
	}
	next, from := start, start // where the next read begins; the first row whose lines are new
	if w.cut && found && start < pn.Height {
		// The line at start is the send's own: the new lines begin after
		// it. While it runs to the bottom, the next read begins at it too.
		k := s.nextLine(first + start)
		if from = k - first; k < len(s.rows) {
			w.cut, next = false, from
		}
	} else {
		w.cut = false
	}
	lines := s.from(first + from)
	line := s.lineOf(first + from)
	if w.echo > 0 && !w.cut && found {
		// The lines after the send's own line that run_command's command
		// shows as are the send's too: skipped once.
		n := min(w.echo, len(lines))
		lines, line, w.echo = lines[n:], line+n, w.echo-n
	}
	// The rows read above the screen stay as they are: the next read can
	// begin at the top of the screen, or lower if the first new row is.
	above := max(len(lines)-len(s.from(first)), 0)
	w.past = lastN(append(w.past, lines[:above]...), WaitTailLines)
	cursor := min(pn.CursorY, after.CursorY)
	if found && w.anchor.sameShape(pn) && w.anchor.sameShape(after) {
		w.anchor = w.anchor.moved(row, s.rows, cursor)
	} else {
		w.anchor = takeAnchor(pn, after, s.rows, cursor)
	}
	w.skip = max(next, 0)
	w.last = readPos{s: s, first: first, line: line, ok: true}
	if w.first {
		w.screen = s.from(first)
	}
	return lines, after, nil
}

// split captures the lines (joined) from row top to the bottom of the
// screen, as many as a capture may hold, cuts them into rows, and reads
// the pane's state after.
func (w *waiter) split(ctx context.Context, pn tmux.Pane, top int, changed bool) (splitRows, tmux.Pane, error) {
	c, after, err := w.captureState(ctx, supervisor.CaptureRequest{Pane: w.pane, Start: &top, Join: true,
		MaxLines: max(min(pn.Height-top, w.ceiling.Lines), 1), MaxBytes: w.ceiling.Bytes, Changed: changed})
	if err != nil {
		return splitRows{}, tmux.Pane{}, err
	}
	s := splitLines(strings.Split(strings.TrimSuffix(string(c.Content), "\n"), "\n"), pn.Width)
	return s, after, nil
}

// captureState captures as req asks and reads the pane's state after
// it. A capture the cache may answer (not changed) is followed by a read
// of its own; one that goes to tmux brings the state along in its round
// trip (supervisor.CaptureRequest.StateAfter), which a wait woken by
// output saves a round trip with.
func (w *waiter) captureState(ctx context.Context, req supervisor.CaptureRequest) (supervisor.Capture, tmux.Pane, error) {
	if !req.Changed {
		c, err := ReadCapture(ctx, w.srv, req)
		if err != nil {
			return c, tmux.Pane{}, err
		}
		after, err := w.state(ctx)
		if err == nil {
			w.prev = after
		}
		return c, after, err
	}
	req.StateAfter = paneStateFormat
	c, err := ReadCapture(ctx, w.srv, req)
	if err != nil {
		return c, tmux.Pane{}, err
	}
	after, err := paneStateRecord(w.pane, c.State)
	if err == nil {
		err = w.valid(after)
	}
	if err == nil && w.stale {
		if p := w.prev; p.Width != after.Width || p.Height != after.Height || p.HistoryLimit != after.HistoryLimit ||
			p.AlternateOn != after.AlternateOn || p.InMode != after.InMode {
			return c, after, errShapeChanged
		}
		w.stale = false // the state this check read from is now the real one's predecessor
	}
	if err == nil {
		w.prev = after
	}
	return c, after, err
}

// lastN returns the last n of s.
func lastN(s []string, n int) []string {
	return s[max(len(s)-n, 0):]
}
