package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

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

var sinceSchema = tooldef.Record(tField, []string{"pane_id", "cursor", "lines_missed", "truncated",
	"truncated_lines", "truncated_bytes", "history_overflowed", "sha256", "cached", "freshness", "lines"}, nil)

// CaptureSince returns what a pane printed since the previous call.
func CaptureSince(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("capture_since", "New or rewritten lines since the last call's cursor.",
		tooldef.Read, sinceSchema,
		paneTarget(mcp.WithString("cursor"), pMaxLines, mcp.WithInteger("max_bytes"))...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		maxLines, err := tooldef.Positive(p, "max_lines", 500)
		if err != nil {
			return nil, err
		}
		maxBytes, err := tooldef.Positive(p, "max_bytes", 128000)
		if err != nil {
			return nil, err
		}
		var cur *drive.Cursor
		if s := p.Str("cursor"); s != "" {
			c, err := drive.DecodeCursor(s)
			if err != nil {
				return nil, err
			}
			cur = &c
		}
		var srv *supervisor.Server
		var id tmux.PaneID
		if cur != nil && p.Str("pane_id") == "" && p.Str("window_id") == "" && p.Str("session_id") == "" && p.Str("session_name") == "" {
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
