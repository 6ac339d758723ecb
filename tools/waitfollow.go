package tools

import (
	"context"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// follow reads the lines from the first new row down when tmux may have
// freed history lines since the anchor was taken (see screenAnchor): it
// captures the rows where the anchor can be, finds it there, takes the
// lines after it, and moves the anchor down to the top of the screen, so
// that it stays ahead of what tmux frees. If the anchor is gone, so are
// lines printed during the wait that were not read yet: it takes all that
// is left and says that history overflowed.
func (w *waiter) follow(ctx context.Context, pn tmux.Pane, changed bool) ([]string, error) {
	top := w.anchor.reach(pn)
	if len(w.anchor.fp) == 0 {
		top = -pn.HistorySize
	}
	s, after, err := w.split(ctx, pn, top, changed)
	if err != nil {
		return nil, err
	}
	row, found := w.anchor.locate(pn, after, s.rows)
	if !found && top > -pn.HistorySize {
		// Not within two drops: look through the whole history.
		pn = after
		if s, after, err = w.split(ctx, pn, -pn.HistorySize, changed); err != nil {
			return nil, err
		}
		row, found = w.anchor.locate(pn, after, s.rows)
	}
	first := max(len(s.rows)-pn.Height, 0) // the index of row 0
	start := -first                        // the first row not yet read
	if found {
		start = min(max(row+w.skip, -first), pn.Height)
	} else if w.anchor.mayHaveDropped(after) {
		w.res.HistoryOverflowed = true
	}
	lines := s.from(first + start)
	if start < 0 {
		// The rows above the screen were read, and stay as they are: the
		// next read can begin at the top of the screen.
		above := len(lines) - len(s.from(first))
		w.past = lastN(append(w.past, lines[:above]...), waitTailLines)
		w.anchor, w.skip = takeAnchor(pn, after, s.rows, pn.CursorY), 0
	}
	return lines, nil
}

// split captures the lines (joined) from row top to the bottom of the
// screen, as many as a capture may hold, cuts them into rows, and reads
// the pane's state after.
func (w *waiter) split(ctx context.Context, pn tmux.Pane, top int, changed bool) (splitRows, tmux.Pane, error) {
	c, err := capture(ctx, w.srv, supervisor.CaptureRequest{Pane: w.pane, Start: &top, Join: true,
		MaxLines: max(min(pn.Height-top, w.ceiling.lines), 1), MaxBytes: w.ceiling.bytes, Changed: changed})
	if err != nil {
		return splitRows{}, tmux.Pane{}, err
	}
	s := splitLines(strings.Split(strings.TrimSuffix(string(c.Content), "\n"), "\n"), pn.Width)
	after, err := w.state(ctx)
	return s, after, err
}

// lastN returns the last n of s.
func lastN(s []string, n int) []string {
	return s[max(len(s)-n, 0):]
}
