package drive

import (
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// A pane's history at its history-limit.
//
// Rows are numbered as capture-pane numbers them: 0 is the top of the
// screen, negative rows are history. Each line that scrolls off the screen
// moves every row up by one and adds one to history_size, until
// history_size reaches history_limit: from then on, before the next line
// scrolls, tmux frees the oldest max(history_limit/10, 1) lines at once
// (grid_collect_history in grid.c, the same from 3.2a to 3.7c; 3.7c also
// frees everything above a lowered history-limit at once). history_size
// falls back, and the row of a line taken earlier can no longer be worked
// out from it: tmux counts the lines it freed nowhere that a client can
// read (history_size, history_limit and history_bytes describe what is
// held now). So a line is remembered with the rows around it, and found
// again:
//
//   - Nothing was freed since the anchor was taken while history_size has
//     not fallen below what it was then and is still at most
//     history_limit - drop: after any drop it is above that until the
//     history is cleared. The anchor's row is then known (settled).
//   - Otherwise the lines freed since are a multiple of drop, so the anchor
//     is at one of a few rows, drop apart; the rows just above it tell
//     which. Those rows were history when the anchor was taken, and a
//     program cannot rewrite history, so they are still as they were,
//     unless tmux freed them too: then so was the anchor, and any line
//     after it that was not read yet is lost. (A pane with little history
//     is found by its screen rows above the cursor as well, which a
//     full-screen program can rewrite; a resized pane by its rows
//     anywhere.)

// AnchorRows is how many rows identify an anchor: the history rows just
// above it, or, in a pane with less history than that, also the rows from
// it down to the cursor.
const AnchorRows = 8

// historyDrop is how many lines tmux frees from a full history at once.
func historyDrop(limit int) int { return max(limit/10, 1) }

// screenAnchor is the line that was at the top of a pane's screen when the
// anchor was taken.
type screenAnchor struct {
	// hsize is the pane's history size when the anchor was taken, give or
	// take slack (lines that may have scrolled while it was captured).
	hsize, slack int
	// The pane's history-limit and size then.
	limit, width, height int
	// fp holds digests of the rows from above rows above the anchor down
	// (the anchor row is fp[above], if fp is that long).
	fp    []string
	above int
}

// paneAnchor anchors at the top of pn's screen without rows to find it by:
// it can only say whether it is settled, and where.
func paneAnchor(pn tmux.Pane) screenAnchor {
	return screenAnchor{hsize: pn.HistorySize, limit: pn.HistoryLimit, width: pn.Width, height: pn.Height}
}

// takeAnchor anchors at the top of the screen of rows, the pane's rows from
// some row to the bottom of the screen (a capture not joined, or a joined
// one cut by splitLines) captured between two reads of the pane, before
// and after. cursor is the cursor's row in before.
func takeAnchor(before, after tmux.Pane, rows []string, cursor int) screenAnchor {
	a := paneAnchor(before)
	a.slack = frameSlack(before, after)
	return a.withRows(rows, cursor)
}

// withRows sets a's rows to find it by from rows, the rows of a capture
// whose screen top is a.
func (a screenAnchor) withRows(rows []string, cursor int) screenAnchor {
	a.fp = nil
	top := max(len(rows)-a.height, 0)
	a.above = min(AnchorRows, top)
	end := top
	if a.above < AnchorRows {
		end = min(top+min(AnchorRows-a.above, max(cursor-a.slack, 0)), len(rows))
	}
	for _, r := range rows[top-a.above : end] {
		a.fp = append(a.fp, rowHash(strings.TrimRight(r, " ")))
	}
	return a
}

// moved anchors at the top of the screen of rows, a capture in which a was
// found at row: the lines between scrolled by since, and as many were
// added to the history (less what tmux freed, a multiple of drop, which
// locate allows for).
func (a screenAnchor) moved(row int, rows []string, cursor int) screenAnchor {
	a.hsize -= row
	return a.withRows(rows, cursor)
}

// shifted anchors at row r (r <= 0) of rows, a capture whose screen top is
// a: the line at row r was at the top of the screen when the history held
// -r lines fewer, and the rows above it find it again.
func (a screenAnchor) shifted(r int, rows []string) screenAnchor {
	a.hsize += r
	return a.withRows(rows[:len(rows)+r], 0)
}

// frameSlack is how far the history size at a capture made between two
// reads of a pane, before and after, may be from before's, as far as it
// tells rows apart (modulo drop): none if nothing changed (or exactly
// drop lines scrolled, as many as were freed), the lines that scrolled if
// none can have been freed, otherwise any.
func frameSlack(before, after tmux.Pane) int {
	limit := before.HistoryLimit
	switch d := after.HistorySize - before.HistorySize; {
	case d == 0:
		return 0
	case d > 0 && (limit == 0 || after.HistorySize <= limit-historyDrop(limit)):
		return d
	}
	return historyDrop(limit)
}

// settled reports whether pn shows that no line was freed since the
// anchor was taken; row is then the anchor's row (or, with slack, the
// highest it can be at: it may be up to slack rows lower). A pane without
// history (history-limit 0) keeps nothing to find, so its arithmetic is
// taken as it is.
func (a screenAnchor) settled(pn tmux.Pane) (row int, ok bool) {
	row = a.hsize - pn.HistorySize
	switch {
	case !a.sameShape(pn):
		return 0, false
	case a.limit == 0:
		return row, a.slack == 0
	}
	return row, pn.HistorySize >= a.hsize+a.slack && pn.HistorySize <= a.limit-historyDrop(a.limit)
}

func (a screenAnchor) sameShape(pn tmux.Pane) bool {
	return pn.HistoryLimit == a.limit && pn.Width == a.width && pn.Height == a.height
}

// mayHaveDropped reports whether tmux may have freed lines of pn's history
// since the anchor was taken (rather than the history being cleared).
func (a screenAnchor) mayHaveDropped(pn tmux.Pane) bool {
	_, ok := a.settled(pn)
	return !ok && pn.HistoryLimit > 0 && pn.HistorySize > pn.HistoryLimit-historyDrop(pn.HistoryLimit)
}

// reach is the row a capture must start at to find the anchor if tmux
// freed lines at most twice since it was taken.
func (a screenAnchor) reach(pn tmux.Pane) int {
	return max(a.hsize-pn.HistorySize-a.slack-2*historyDrop(a.limit)-AnchorRows, -pn.HistorySize)
}

// locate finds the anchor in rows, the pane's rows from some row to the
// bottom of the screen, captured between two reads of the pane, before and
// after. It returns the anchor's row; found is false when the rows do not
// hold it (freed or cleared, or above the capture). Where more than one row
// could be the anchor, the lowest is taken: the one that needs the fewest
// freed lines.
func (a screenAnchor) locate(before, after tmux.Pane, rows []string) (row int, found bool) {
	top := len(rows) - before.Height // the index of row 0
	if len(a.fp) == 0 {
		// Nothing above the anchor when it was taken: every row held now
		// is the anchor or came after it.
		return -top, true
	}
	drop := historyDrop(a.limit)
	// The anchor is at a row in [lo, hi], less a multiple of drop.
	hi := a.hsize + a.slack - before.HistorySize
	lo := a.hsize - before.HistorySize - frameSlack(before, after)
	every := !a.sameShape(before) || !a.sameShape(after) || hi-lo >= drop-1
	first := min(hi, 0)
	if !a.sameShape(before) {
		first = before.Height - 1
	}
	hashes := make([]string, len(rows))
	for r := first; r >= -top+a.above; r-- {
		if !every && (hi-r)%drop > hi-lo {
			continue
		}
		i := top + r - a.above
		if i+len(a.fp) > len(rows) {
			continue
		}
		match := true
		for k, want := range a.fp {
			if hashes[i+k] == "" {
				hashes[i+k] = rowHash(strings.TrimRight(rows[i+k], " "))
			}
			if hashes[i+k] != want {
				match = false
				break
			}
		}
		if match {
			return r, true
		}
	}
	return 0, false
}
