package drive

import (
	"context"
	"errors"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// check reads the pane once and returns the outcome if the wait is over;
// changed says a change event woke it.
func (w *waiter) check(ctx context.Context, changed bool) (string, error) {
	// Woken by output, the state read with the last capture stands for
	// the pane's state before this one: it was read before the capture,
	// which is all the reading of the rows needs (histanchor.go reasons
	// about a capture made between two reads of the pane), and the state
	// read with the capture tells what changed since. The capture starts
	// a screen higher, for the lines that scrolled meanwhile. That saves
	// the round trip of a state read of its own; the shape changing
	// (a resize, the alternate screen, a new history limit) sends the
	// check back to reading the state first.
	w.stale = changed && w.prev.ID != ""
	var pn tmux.Pane
	if w.stale {
		pn = w.prev
	} else {
		var err error
		if pn, err = w.state(ctx); err != nil {
			return "", err
		}
	}
	outcome, err := w.checkFrom(ctx, pn, changed)
	if errors.Is(err, errShapeChanged) {
		w.stale, w.prev = false, tmux.Pane{}
		if pn, err = w.state(ctx); err != nil {
			return "", err
		}
		return w.checkFrom(ctx, pn, changed)
	}
	return outcome, err
}

// errShapeChanged: the state read with a capture made from a stale state
// shows that the pane changed shape since; nothing was read from it.
var errShapeChanged = errors.New("tools: the pane changed shape since its last read")

// checkFrom is check from the pane's state pn, read before the capture.
func (w *waiter) checkFrom(ctx context.Context, pn tmux.Pane, changed bool) (string, error) {
	var err error
	var rows []string
	after := pn // the state read with the capture, if any
	w.last = readPos{}
	switch row, settled := w.anchor.settled(pn); {
	case pn.AlternateOn:
		// A full-screen program's screen: no history to anchor in.
		rows, after, err = w.read(ctx, 0, changed)
	case settled && pn.HistoryLimit == 0:
		// No history: rows that scroll off are gone, and so is any row to
		// find the anchor by.
		if top := row + w.skip; top < pn.Height {
			rows, after, err = w.read(ctx, top, changed)
		}
	default:
		rows, after, err = w.follow(ctx, pn, changed)
	}
	if err != nil {
		return "", err
	}
	w.rows = rows
	var fresh []int // indices in rows
	for i, r := range rows {
		if r != "" && !w.entry[r] {
			fresh = append(fresh, i)
		}
	}
	if len(fresh) == 0 {
		return "", nil
	}
	w.res.SawNewOutput = true
	if !pn.AlternateOn {
		// The capture came after the state was read: make sure the new
		// lines are not the alternate screen that came in between (the
		// state read right after the capture says).
		pn = after
	}
	if pn.AlternateOn {
		// A full-screen program: its screen is not a stream of lines.
		w.res.AlternateScreen = true
		return "", nil
	}
	// stop wins a tie with patterns.
	for i, lp := range w.stop {
		if m := w.matchFresh(lp, rows, fresh); len(m) > 0 {
			w.res.MatchedIndex, w.res.MatchedLines = &i, m
			return "stopped", nil
		}
	}
	if w.patterns == nil {
		for _, k := range fresh {
			w.res.MatchedLines = append(w.res.MatchedLines, rows[k])
		}
		w.hit = fresh[len(fresh)-1]
		return "any_output", nil
	}
	for i, lp := range w.patterns {
		if m := w.matchFresh(lp, rows, fresh); len(m) > 0 {
			w.res.MatchedIndex, w.res.MatchedLines = &i, m
			return "matched", nil
		}
	}
	return "", nil
}

// matchFresh returns the lines among rows[fresh] that lp matches, and
// notes the last one's index in w.hit.
func (w *waiter) matchFresh(lp LinePattern, rows []string, fresh []int) []string {
	var out []string
	for _, k := range fresh {
		if lp.Match(rows[k]) {
			out = append(out, rows[k])
			w.hit = k
		}
	}
	return out
}
