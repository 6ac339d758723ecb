package tools

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// sinceCursor is where the previous capture_since left a pane: the row the
// cursor was on, as an absolute row (history size + cursor row), and
// digests of that row and the rows below it, so that rows rewritten in
// place are noticed; and what finds the top of that screen again once tmux
// has freed history lines (see screenAnchor).
type sinceCursor struct {
	Version     int      `json:"v"`
	PaneID      string   `json:"pane_id"`
	PanePID     int      `json:"pane_pid"`
	HistorySize int      `json:"history_size"`
	PaneHeight  int      `json:"pane_height"`
	AnchorAbs   int      `json:"anchor_abs"`
	AnchorHash  string   `json:"anchor_hash"`
	BelowHashes []string `json:"below_hashes"`
	// The screen anchor: the pane's history-limit and width, and digests
	// of the rows around the top of the screen, FPAbove of them above it.
	HistoryLimit int      `json:"history_limit,omitempty"`
	PaneWidth    int      `json:"pane_width,omitempty"`
	FP           []string `json:"fp,omitempty"`
	FPAbove      int      `json:"fp_above,omitempty"`
}

const cursorPrefix = "tmux-mcp-since-1:"

func (c sinceCursor) encode() string {
	b, _ := json.Marshal(c) //nolint:errchkjson // plain struct
	return cursorPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (sinceCursor, error) {
	bad := func(reason string) error {
		return &toolError{msg: "invalid capture_since cursor: " + reason, class: "argument",
			hint: "Pass the cursor from the previous capture_since result, or none to start over."}
	}
	payload, ok := strings.CutPrefix(s, cursorPrefix)
	if !ok {
		return sinceCursor{}, bad("wrong prefix")
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return sinceCursor{}, bad("undecodable payload")
	}
	var c sinceCursor
	if err := json.Unmarshal(b, &c); err != nil {
		return sinceCursor{}, bad("payload is not a cursor object")
	}
	switch {
	case c.Version != 1:
		return sinceCursor{}, bad(fmt.Sprintf("unknown version %d", c.Version))
	case !paneIDRe.MatchString(c.PaneID) || c.PaneHeight < 1 || c.AnchorAbs < c.HistorySize || c.HistorySize < 0 ||
		len(c.AnchorHash) != 16 || c.FPAbove < 0 || c.FPAbove > len(c.FP) || len(c.FP) > 2*anchorRows:
		return sinceCursor{}, bad("missing or invalid fields")
	}
	for _, h := range c.FP {
		if len(h) != 16 {
			return sinceCursor{}, bad("missing or invalid fields")
		}
	}
	return c, nil
}

// anchor is the top of the screen the cursor saw in pn. A cursor from
// before anchors had rows is taken to have seen pn's history-limit and
// width: its row is then known only while settled.
func (c sinceCursor) anchor(pn tmux.Pane) screenAnchor {
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
func newCursor(pn tmux.Pane, rows []string) sinceCursor {
	a := takeAnchor(pn, pn, rows, pn.CursorY)
	c := sinceCursor{Version: 1, PaneID: string(pn.ID), PanePID: pn.PID, HistorySize: pn.HistorySize,
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

type sinceResult struct {
	PaneID         string   `json:"pane_id"`
	Cursor         string   `json:"cursor"`
	Lines          []string `json:"lines"`
	LinesMissed    bool     `json:"lines_missed"`
	Truncated      bool     `json:"truncated"`
	TruncatedLines int      `json:"truncated_lines"`
	TruncatedBytes int      `json:"truncated_bytes"`
	// HistoryOverflowed: tmux freed lines of the pane's history (its
	// history-limit) printed since the cursor before they were read; how
	// many is not known. lines_missed is set too.
	HistoryOverflowed bool `json:"history_overflowed"`
	captureMeta
}

var sinceSchema = record(tField, []string{"pane_id", "cursor", "lines_missed", "truncated",
	"truncated_lines", "truncated_bytes", "history_overflowed", "sha256", "cached", "freshness", "lines"}, nil)

// CaptureSince returns what a pane printed since the previous call.
func CaptureSince(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("capture_since", "New or rewritten lines since the last call's cursor.",
		hintsRead, sinceSchema,
		paneTarget(mcp.WithString("cursor"), pMaxLines, mcp.WithInteger("max_bytes"))...)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		maxLines, err := positiveArg(p, "max_lines", 500)
		if err != nil {
			return nil, err
		}
		maxBytes, err := positiveArg(p, "max_bytes", 128000)
		if err != nil {
			return nil, err
		}
		var cur *sinceCursor
		if s := p.str("cursor"); s != "" {
			c, err := decodeCursor(s)
			if err != nil {
				return nil, err
			}
			cur = &c
		}
		var srv *supervisor.Server
		var id tmux.PaneID
		if cur != nil && p.str("pane_id") == "" && p.str("window_id") == "" && p.str("session_id") == "" && p.str("session_name") == "" {
			srv, err = d.server(ctx, p)
			id = tmux.PaneID(cur.PaneID)
		} else {
			srv, id, err = d.paneID(ctx, p)
		}
		if err != nil {
			return nil, err
		}
		if cur != nil && tmux.PaneID(cur.PaneID) != id {
			return nil, &toolError{msg: fmt.Sprintf("cursor pane %s does not match requested pane %s", cur.PaneID, id), class: "argument"}
		}
		cfg := d.Sup.Config()
		res, err := since(ctx, srv, id, cur, captureCeiling{cfg.MaxCaptureLines, cfg.MaxCaptureBytes})
		if err != nil {
			return nil, err
		}
		res.Lines, res.TruncatedLines, res.TruncatedBytes = capture.CapTail(res.Lines, maxLines, maxBytes)
		res.Truncated = res.TruncatedLines > 0 || res.TruncatedBytes > 0
		return structured(res)
	})
}

// captureCeiling is the most one capture may hold.
type captureCeiling struct{ lines, bytes int }

// stableTries bounds the reads of a pane that keeps changing under us.
const stableTries = 3

// since reads the lines after cur (all visible lines when cur is nil).
// The pane's state is read before and after the capture; if it moved
// (output scrolled, the pane resized), the read is tried again, and after
// stableTries the result says lines may have been missed.
func since(ctx context.Context, srv *supervisor.Server, id tmux.PaneID, cur *sinceCursor, ceiling captureCeiling) (sinceResult, error) {
	for try := 1; ; try++ {
		before, err := readPane(ctx, srv, id)
		if err != nil {
			return sinceResult{}, err
		}
		if cur != nil {
			if err := anchorValid(before, cur); err != nil {
				return sinceResult{}, err
			}
		}
		res, rows, err := sinceOnce(ctx, srv, before, cur, ceiling)
		if err != nil {
			return sinceResult{}, err
		}
		after, err := readPane(ctx, srv, id)
		if err != nil {
			return sinceResult{}, err
		}
		same := after.HistorySize == before.HistorySize && after.CursorY == before.CursorY &&
			after.Height == before.Height && after.PID == before.PID && after.AlternateOn == before.AlternateOn
		if same || try == stableTries {
			res.LinesMissed = res.LinesMissed || !same
			res.PaneID = string(id)
			res.Cursor = newCursor(after, rows).encode()
			return res, nil
		}
	}
}

// anchorValid fails when the cursor's pane died or was respawned: its rows
// no longer continue what the cursor saw.
func anchorValid(pn tmux.Pane, cur *sinceCursor) error {
	switch {
	case pn.Dead:
		return &toolError{msg: fmt.Sprintf("pane %s died; cursor/baseline anchor is no longer valid", pn.ID), class: "pane_dead"}
	case pn.PID != cur.PanePID:
		return &toolError{msg: fmt.Sprintf("pane %s was respawned (pid %d -> %d); cursor/baseline anchor is no longer valid",
			pn.ID, cur.PanePID, pn.PID), class: "pane_respawned", hint: "Call capture_since without a cursor to start over."}
	}
	return nil
}

// sinceOnce captures once and cuts out the new lines. rows are the rows
// captured, to the bottom of the screen, for the next cursor.
func sinceOnce(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, cur *sinceCursor, ceiling captureCeiling) (res sinceResult, rows []string, err error) {
	above := -min(pn.HistorySize, anchorRows) // rows the next cursor is anchored by
	if cur == nil {
		rows, c, err := captureRows(ctx, srv, pn, above, ceiling)
		if err != nil {
			return sinceResult{}, nil, err
		}
		res.Lines, res.captureMeta = trimRows(rows[max(len(rows)-pn.Height, 0):]), metaOf(c)
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
			return sinceResult{}, nil, err
		}
		res.captureMeta = metaOf(c)
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
	if pn.Height-top > ceiling.lines {
		// More new lines than one capture may hold: the oldest are skipped.
		top, res.LinesMissed = pn.Height-ceiling.lines, true
	}
	rows, c, err := captureRows(ctx, srv, pn, top, ceiling)
	if err != nil {
		return sinceResult{}, nil, err
	}
	res.captureMeta = metaOf(c)
	if res.LinesMissed {
		res.Lines = trimRows(rows)
		return res, rows, nil
	}
	res.Lines = newRows(rows[min(anchor-top, len(rows)):], cur)
	return res, rows, nil
}

// captureRows captures from row top (negative: history) to the bottom of
// the screen, one string per row.
func captureRows(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, top int, ceiling captureCeiling) ([]string, supervisor.Capture, error) {
	c, err := readCapture(ctx, srv, supervisor.CaptureRequest{Pane: pn.ID, Start: &top,
		MaxLines: min(pn.Height-top, ceiling.lines), MaxBytes: ceiling.bytes})
	if err != nil {
		return nil, c, err
	}
	return strings.Split(strings.TrimSuffix(string(c.Content), "\n"), "\n"), c, nil
}

// newRows returns rows (starting at the anchor row) less the anchor row
// and the rows below it that are unchanged since the cursor.
func newRows(rows []string, cur *sinceCursor) []string {
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
