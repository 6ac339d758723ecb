package drive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// anchor is the top of the screen the cursor saw in pn. A cursor from
// before anchors had rows is taken to have seen pn's history-limit and
// width: its row is then known only while settled.
func (c Cursor) anchor(pn tmux.Pane) screenAnchor {
	a := screenAnchor{hsize: c.HistorySize, limit: c.HistoryLimit, width: c.PaneWidth, height: c.PaneHeight,
		fp: c.FP, above: c.FPAbove}
	if c.PaneWidth == 0 {
		a.limit, a.width = pn.HistoryLimit, pn.Width
	}
	return a
}

// rowHash is a short digest of one row.
func rowHash(row string) string {
	sum := sha256.Sum256([]byte(row))
	return hex.EncodeToString(sum[:8])
}

// newCursor anchors at pn's cursor row; rows are rows captured from some
// row to the bottom of the screen.
func newCursor(pn tmux.Pane, rows []string) Cursor {
	a := takeAnchor(pn, pn, rows, pn.CursorY)
	c := Cursor{Version: 1, PaneID: string(pn.ID), PanePID: pn.PID, HistorySize: pn.HistorySize,
		PaneHeight: pn.Height, AnchorAbs: pn.HistorySize + pn.CursorY, BelowHashes: []string{},
		HistoryLimit: a.limit, PaneWidth: a.width, FP: a.fp, FPAbove: a.above}
	visible := rows[max(len(rows)-pn.Height, 0):]
	row := func(i int) string {
		if i < len(visible) {
			return visible[i]
		}
		return ""
	}
	c.AnchorHash = rowHash(row(pn.CursorY))
	for i := pn.CursorY + 1; i < pn.Height; i++ {
		c.BelowHashes = append(c.BelowHashes, rowHash(row(i)))
	}
	return c
}

// Ceiling is the most one capture may hold (the supervisor's caps).
type Ceiling struct{ Lines, Bytes int }

// SinceResult is what a read since a cursor gave: the lines, whether
// some were missed, and the last capture (its digest, cache and
// freshness).
type SinceResult struct {
	PaneID            string
	Cursor            string
	Lines             []string
	LinesMissed       bool
	HistoryOverflowed bool
	Capture           supervisor.Capture
}

// stableTries bounds the reads of a pane that keeps changing under us.
const stableTries = 3

// Since reads the lines after cur (all visible lines when cur is nil).
// The pane's state is read before and after the capture; if it moved
// (output scrolled, the pane resized), the read is tried again, and after
// stableTries the result says lines may have been missed.
func Since(ctx context.Context, srv *supervisor.Server, id tmux.PaneID, cur *Cursor, ceiling Ceiling) (SinceResult, error) {
	for try := 1; ; try++ {
		before, err := ReadPane(ctx, srv, id)
		if err != nil {
			return SinceResult{}, err
		}
		if cur != nil {
			if err := anchorValid(before, cur); err != nil {
				return SinceResult{}, err
			}
		}
		res, rows, err := sinceOnce(ctx, srv, before, cur, ceiling)
		if err != nil {
			return SinceResult{}, err
		}
		after, err := ReadPane(ctx, srv, id)
		if err != nil {
			return SinceResult{}, err
		}
		same := after.HistorySize == before.HistorySize && after.CursorY == before.CursorY &&
			after.Height == before.Height && after.PID == before.PID && after.AlternateOn == before.AlternateOn
		if same || try == stableTries {
			res.LinesMissed = res.LinesMissed || !same
			res.PaneID = string(id)
			res.Cursor = newCursor(after, rows).Encode()
			return res, nil
		}
	}
}

// anchorValid fails when the cursor's pane died or was respawned: its rows
// no longer continue what the cursor saw.
func anchorValid(pn tmux.Pane, cur *Cursor) error {
	switch {
	case pn.Dead:
		return &DeadError{Pane: pn.ID}
	case pn.PID != cur.PanePID:
		return &RespawnedError{Pane: pn.ID, Was: cur.PanePID, Now: pn.PID}
	}
	return nil
}

// sinceOnce captures once and cuts out the new lines. rows are the rows
// captured, to the bottom of the screen, for the next cursor.
func sinceOnce(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, cur *Cursor, ceiling Ceiling) (res SinceResult, rows []string, err error) {
	above := -min(pn.HistorySize, AnchorRows) // rows the next cursor is anchored by
	if cur == nil {
		rows, c, err := captureRows(ctx, srv, pn, above, ceiling)
		if err != nil {
			return SinceResult{}, nil, err
		}
		res.Lines, res.Capture = trimRows(rows[max(len(rows)-pn.Height, 0):]), c
		return res, rows, nil
	}
	a := cur.anchor(pn)
	skip := cur.AnchorAbs - cur.HistorySize // the cursor's row in the anchor's screen
	row, settled := a.settled(pn)
	if !settled {
		// tmux may have freed history lines since the cursor: find the
		// cursor's screen by its rows.
		rows, c, err := captureRows(ctx, srv, pn, -pn.HistorySize, ceiling)
		if err != nil {
			return SinceResult{}, nil, err
		}
		res.Capture = c
		first := max(len(rows)-pn.Height, 0)
		row, found := a.locate(pn, pn, rows)
		if !found {
			// Freed, or the history was cleared: all that is left.
			res.Lines, res.LinesMissed, res.HistoryOverflowed = trimRows(rows), true, a.mayHaveDropped(pn)
			return res, rows, nil
		}
		at := min(max(first+row+skip, 0), len(rows))
		res.Lines = newRows(rows[at:], cur)
		return res, rows, nil
	}
	anchor := row + skip
	top := min(anchor, above)
	if pn.Height-top > ceiling.Lines {
		// More new lines than one capture may hold: the oldest are skipped.
		top, res.LinesMissed = pn.Height-ceiling.Lines, true
	}
	rows, c, err := captureRows(ctx, srv, pn, top, ceiling)
	if err != nil {
		return SinceResult{}, nil, err
	}
	res.Capture = c
	if res.LinesMissed {
		res.Lines = trimRows(rows)
		return res, rows, nil
	}
	res.Lines = newRows(rows[min(anchor-top, len(rows)):], cur)
	return res, rows, nil
}

// captureRows captures from row top (negative: history) to the bottom of
// the screen, one string per row.
func captureRows(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, top int, ceiling Ceiling) ([]string, supervisor.Capture, error) {
	c, err := ReadCapture(ctx, srv, supervisor.CaptureRequest{Pane: pn.ID, Start: &top,
		MaxLines: min(pn.Height-top, ceiling.Lines), MaxBytes: ceiling.Bytes})
	if err != nil {
		return nil, c, err
	}
	return strings.Split(strings.TrimSuffix(string(c.Content), "\n"), "\n"), c, nil
}

// newRows returns rows (starting at the anchor row) less the anchor row
// and the rows below it that are unchanged since the cursor.
func newRows(rows []string, cur *Cursor) []string {
	if len(rows) > 0 && rowHash(rows[0]) == cur.AnchorHash {
		rows = rows[1:]
		for k := 0; k < len(cur.BelowHashes) && len(rows) > 0 && rowHash(rows[0]) == cur.BelowHashes[k]; k++ {
			rows = rows[1:]
		}
	}
	return trimRows(rows)
}

// trimRows drops trailing blank rows.
func trimRows(rows []string) []string {
	n := len(rows)
	for n > 0 && strings.TrimSpace(rows[n-1]) == "" {
		n--
	}
	return append([]string{}, rows[:n]...)
}
