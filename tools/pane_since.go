package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// decodeCursor reads a capture_since cursor argument, checked.
func decodeCursor(s string) (drive.Cursor, error) {
	bad := func(reason string) error {
		return &toolError{msg: "invalid capture_since cursor: " + reason, class: "argument",
			hint: "Pass the cursor from the previous capture_since result, or none to start over."}
	}
	payload, ok := strings.CutPrefix(s, drive.CursorPrefix)
	if !ok {
		return drive.Cursor{}, bad("wrong prefix")
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return drive.Cursor{}, bad("undecodable payload")
	}
	var c drive.Cursor
	if err := json.Unmarshal(b, &c); err != nil {
		return drive.Cursor{}, bad("payload is not a cursor object")
	}
	switch {
	case c.Version != 1:
		return drive.Cursor{}, bad(fmt.Sprintf("unknown version %d", c.Version))
	case !paneIDRe.MatchString(c.PaneID) || c.PaneHeight < 1 || c.AnchorAbs < c.HistorySize || c.HistorySize < 0 ||
		len(c.AnchorHash) != 16 || c.FPAbove < 0 || c.FPAbove > len(c.FP) || len(c.FP) > 2*drive.AnchorRows:
		return drive.Cursor{}, bad("missing or invalid fields")
	}
	for _, h := range c.FP {
		if len(h) != 16 {
			return drive.Cursor{}, bad("missing or invalid fields")
		}
	}
	return c, nil
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
		var cur *drive.Cursor
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
		got, err := drive.Since(ctx, srv, id, cur, d.ceiling())
		var re *drive.RespawnedError
		switch {
		case errors.As(err, &re):
			return nil, &toolError{msg: re.Error(), class: "pane_respawned", hint: "Call capture_since without a cursor to start over."}
		case err != nil:
			return nil, err
		}
		res := sinceResult{PaneID: got.PaneID, Cursor: got.Cursor, Lines: got.Lines, LinesMissed: got.LinesMissed,
			HistoryOverflowed: got.HistoryOverflowed, captureMeta: metaOf(got.Capture)}
		res.Lines, res.TruncatedLines, res.TruncatedBytes = capture.CapTail(res.Lines, maxLines, maxBytes)
		res.Truncated = res.TruncatedLines > 0 || res.TruncatedBytes > 0
		return structured(res)
	})
}
