package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// captureMeta is what every capture-like result says about its capture:
// its digest (for if_sha256), whether the cache answered and how it knew
// the pane had not changed.
type captureMeta struct {
	SHA256    string `json:"sha256"`
	Cached    bool   `json:"cached"`
	Freshness string `json:"freshness"`
}

func metaOf(c supervisor.Capture) captureMeta {
	return captureMeta{SHA256: c.SHA256, Cached: c.Cached, Freshness: c.Freshness}
}

// captureResult is capture_pane's result: the text as libtmux-mcp returns
// it, under "result", and what the capture was.
type captureResult struct {
	Result         string `json:"result"`
	Truncated      bool   `json:"truncated"`
	TruncatedLines int    `json:"truncated_lines"`
	TruncatedBytes int    `json:"truncated_bytes"`
	captureMeta
}

var captureSchema = tooldef.Record(tField, []string{"result", "sha256", "cached", "freshness", "truncated", "truncated_lines",
	"truncated_bytes"}, nil)

// CapturePane returns a pane's text.
func CapturePane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("capture_pane", "A pane's screen, or its lines start..end, as text.",
		tooldef.Read, captureSchema,
		paneTarget(mcp.WithInteger("start"), mcp.WithInteger("end"), pMaxLines)...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		maxLines, err := tooldef.Positive(p, "max_lines", d.Sup.Config().CaptureLines)
		if err != nil {
			return nil, err
		}
		srv, id, err := d.paneID(ctx, p)
		if err != nil {
			return nil, err
		}
		req := d.screenFetch(id, maxLines)
		if n, ok := p.Int("start"); ok {
			req.Start = &n
		}
		if n, ok := p.Int("end"); ok {
			req.End = &n
		}
		c, err := drive.ReadCapture(ctx, srv, req)
		if err != nil {
			return nil, err
		}
		missing := c.TruncatedLines
		if req.Start != nil {
			// A range reaching far into history is narrowed before it
			// reaches tmux: count the rows it asked for.
			if missing, err = rangeDropped(ctx, srv, req, c); err != nil {
				return nil, err
			}
		}
		text, cut := keepLines(c.Content, maxLines)
		lines := missing + cut
		switch {
		case lines > 0:
			text = fmt.Sprintf("[... truncated %d lines ...]\n", lines) + text
		case c.TruncatedBytes > 0:
			text = fmt.Sprintf("[... truncated %d bytes ...]\n", c.TruncatedBytes) + text
		}
		res := captureResult{Result: text, Truncated: lines > 0 || c.TruncatedBytes > 0, TruncatedLines: lines,
			TruncatedBytes: c.TruncatedBytes, captureMeta: metaOf(c)}
		b, err := mcpserver.EncodeJSON(res)
		if err != nil {
			return nil, fmt.Errorf("tools: encode result: %w", err)
		}
		out := mcp.NewToolResultStructured(json.RawMessage(b), text)
		switch {
		case lines > 0:
			out.Content = append(out.Content, mcp.NewTextContent(fmt.Sprintf(
				"%d earlier lines left out: raise max_lines (up to %d), or read them with start and end.",
				lines, d.Sup.Config().MaxCaptureLines)))
		case c.TruncatedBytes > 0:
			out.Content = append(out.Content, mcp.NewTextContent(fmt.Sprintf(
				"%d earlier bytes left out: read the lines above with start and end.", c.TruncatedBytes)))
		}
		return out, nil
	})
}

// paneID resolves the pane a call targets without reading its state when
// pane_id names it (tmux reports a missing pane on the call that uses it).
func (d Deps) paneID(ctx context.Context, p tooldef.Args) (*supervisor.Server, tmux.PaneID, error) {
	if id := p.Str("pane_id"); id != "" {
		if !paneIDRe.MatchString(id) {
			return nil, "", tooldef.BadArg("pane_id", "want a pane ID like %%1; call list_panes")
		}
		srv, err := d.server(ctx, p)
		return srv, tmux.PaneID(id), err
	}
	srv, pn, err := d.pane(ctx, p)
	return srv, pn.ID, err
}

// rangeDropped counts the lines of the range req asked for that c does not
// hold: the rows between start (or the top of the history) and end (or the
// bottom of the screen), less the lines kept.
func rangeDropped(ctx context.Context, srv *supervisor.Server, req supervisor.CaptureRequest, c supervisor.Capture) (int, error) {
	pn, err := drive.ReadPane(ctx, srv, req.Pane)
	if err != nil {
		return 0, err
	}
	bottom := pn.Height - 1
	if req.End != nil {
		bottom = min(*req.End, bottom)
	}
	top := max(*req.Start, -pn.HistorySize)
	return max(bottom-top+1-c.Lines, c.TruncatedLines), nil
}

// screenFetch is the capture a read of at most maxLines lines makes: the
// screen request (whose digest if_sha256 compares), unless more lines are
// wanted than it holds. The lines are cut afterwards (keepLines), so that
// blank rows below the text do not count against max_lines.
func (d Deps) screenFetch(pane tmux.PaneID, maxLines int) supervisor.CaptureRequest {
	req := screenRequest(pane)
	if maxLines > d.Sup.Config().CaptureLines {
		req.MaxLines = maxLines
	}
	return req
}

// keepLines drops the blank rows below the last text, as libtmux does, and
// keeps the last max lines; cut counts the lines dropped.
func keepLines(content []byte, max int) (text string, cut int) {
	s := strings.TrimRight(string(content), "\n")
	if s == "" {
		return "", 0
	}
	lines := strings.Split(s, "\n")
	if len(lines) > max {
		cut = len(lines) - max
		lines = lines[cut:]
	}
	return strings.Join(lines, "\n"), cut
}

// snapshotFields are snapshot_pane's display-message, in order; the path
// comes last since it alone may hold a newline.
var snapshotFields = []string{"pane_id", "session_name", "cursor_x", "cursor_y", "pane_width", "pane_height",
	"pane_tty", "pane_pid", "pane_dead", "alternate_on", "pane_in_mode", "pane_mode", "scroll_position",
	"history_size", "pane_title", "pane_current_command", "pane_current_path"}

// paneSnapshot is snapshot_pane's result: libtmux-mcp's PaneSnapshot
// without the geometry and tty (get_pane_info has them; tools/list has a
// byte budget), plus the capture's digest and freshness.
type paneSnapshot struct {
	PaneID                string  `json:"pane_id"`
	Content               string  `json:"content"`
	CursorX               int     `json:"cursor_x"`
	CursorY               int     `json:"cursor_y"`
	PaneWidth             int     `json:"pane_width"`
	PaneHeight            int     `json:"pane_height"`
	PanePID               string  `json:"pane_pid"`
	PaneDead              bool    `json:"pane_dead"`
	AlternateOn           bool    `json:"alternate_on"`
	PaneInMode            bool    `json:"pane_in_mode"`
	PaneMode              *string `json:"pane_mode"`
	ScrollPosition        *int    `json:"scroll_position"`
	HistorySize           int     `json:"history_size"`
	Title                 string  `json:"title"`
	PaneCurrentCommand    string  `json:"pane_current_command"`
	PaneCurrentPath       string  `json:"pane_current_path"`
	IsCaller              *bool   `json:"is_caller"`
	ContentTruncated      bool    `json:"content_truncated"`
	ContentTruncatedLines int     `json:"content_truncated_lines"`
	captureMeta
}

var snapshotSchema = tooldef.Record(tField,
	[]string{"pane_id", "content", "cursor_x", "cursor_y", "pane_width", "pane_height", "pane_pid", "pane_dead",
		"alternate_on", "pane_in_mode", "history_size", "title", "pane_current_command", "pane_current_path",
		"content_truncated", "content_truncated_lines", "sha256", "cached", "freshness",
		"pane_mode", "scroll_position", "is_caller"}, nil)

// the last three may be null

// SnapshotPane returns a pane's screen and state in one call.
func SnapshotPane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("snapshot_pane", "Screen, cursor, size, mode and command of a pane.",
		tooldef.Read, snapshotSchema, paneTarget(pMaxLines)...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, id, err := d.paneID(ctx, p)
		if err != nil {
			return nil, err
		}
		f, err := drive.DisplayFields(ctx, srv, id, snapshotFields...)
		if err != nil {
			return nil, err
		}
		if f[1] == tmux.HiddenSession {
			return nil, paneNotFound(id)
		}
		maxLines, err := tooldef.Positive(p, "max_lines", d.Sup.Config().CaptureLines)
		if err != nil {
			return nil, err
		}
		c, err := drive.ReadCapture(ctx, srv, d.screenFetch(id, maxLines))
		if err != nil {
			return nil, err
		}
		if err := d.guard().LearnOwn(ctx, srv); err != nil {
			return nil, err
		}
		content, cut := keepLines(c.Content, maxLines)
		n := func(i int) int { v, _ := strconv.Atoi(f[i]); return v }
		s := paneSnapshot{PaneID: f[0], Content: content,
			CursorX: n(2), CursorY: n(3), PaneWidth: n(4), PaneHeight: n(5),
			PanePID: f[7], PaneDead: f[8] == "1", AlternateOn: f[9] == "1", PaneInMode: f[10] == "1",
			HistorySize: n(13), Title: f[14], PaneCurrentCommand: f[15], PaneCurrentPath: f[16],
			IsCaller: d.guard().IsCaller(id, srv.Socket()), ContentTruncated: c.TruncatedLines+cut > 0 || c.TruncatedBytes > 0, ContentTruncatedLines: c.TruncatedLines + cut,
			captureMeta: metaOf(c)}
		if s.PaneInMode {
			s.PaneMode = optional(f[11])
			if f[12] != "" {
				pos := n(12)
				s.ScrollPosition = &pos
			}
		}
		return structured(s)
	})
}
