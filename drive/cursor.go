package drive

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Cursor is where the previous capture_since left a pane: the row the
// cursor was on, as an absolute row (history size + cursor row), and
// digests of that row and the rows below it, so that rows rewritten in
// place are noticed; and what finds the top of that screen again once tmux
// has freed history lines (see screenAnchor).
type Cursor struct {
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

// CursorPrefix starts every encoded Cursor.
const CursorPrefix = "tmux-mcp-since-1:"

// Encode is c as capture_since hands it out.
func (c Cursor) Encode() string {
	b, _ := json.Marshal(c) //nolint:errchkjson // plain struct
	return CursorPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// CursorError: an encoded Cursor that is not one (DecodeCursor).
type CursorError struct{ Reason string }

func (e *CursorError) Error() string { return "invalid capture_since cursor: " + e.Reason }

// cursorPaneRe is the form of a cursor's pane ID.
var cursorPaneRe = regexp.MustCompile(`^%[0-9]+$`)

// DecodeCursor reads an encoded Cursor (a capture_since argument),
// checked; a CursorError says what is wrong with it.
func DecodeCursor(s string) (Cursor, error) {
	bad := func(reason string) error { return &CursorError{Reason: reason} }
	payload, ok := strings.CutPrefix(s, CursorPrefix)
	if !ok {
		return Cursor{}, bad("wrong prefix")
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return Cursor{}, bad("undecodable payload")
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil {
		return Cursor{}, bad("payload is not a cursor object")
	}
	switch {
	case c.Version != 1:
		return Cursor{}, bad(fmt.Sprintf("unknown version %d", c.Version))
	case !cursorPaneRe.MatchString(c.PaneID) || c.PaneHeight < 1 || c.AnchorAbs < c.HistorySize || c.HistorySize < 0 ||
		len(c.AnchorHash) != 16 || c.FPAbove < 0 || c.FPAbove > len(c.FP) || len(c.FP) > 2*AnchorRows:
		return Cursor{}, bad("missing or invalid fields")
	}
	for _, h := range c.FP {
		if len(h) != 16 {
			return Cursor{}, bad("missing or invalid fields")
		}
	}
	return c, nil
}
