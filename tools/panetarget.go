package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// pPaneID is the pane_id parameter of the tools that target one pane.
var pPaneID = mcp.WithString("pane_id")

// paneTarget is the targeting every single-pane tool takes: pane_id, else
// the first pane of window_id, else of the first window of the session
// (session_id > session_name > the first session).
func paneTarget(opts ...mcp.ToolOption) []mcp.ToolOption {
	return append(opts, pPaneID, pSessionName, pSessionID, pWindowID, pSocket)
}

// pane resolves the server and the pane a call targets. With pane_id it
// reads the pane's state (one display-message); otherwise it picks the
// pane from one list-panes. Either way the pane's PID, cursor, history and
// size are filled in.
func (d Deps) pane(ctx context.Context, p params) (*supervisor.Server, tmux.Pane, error) {
	srv, err := d.server(ctx, p)
	if err != nil {
		return nil, tmux.Pane{}, err
	}
	pn, err := findPane(ctx, srv, p)
	return srv, pn, err
}

// findPane resolves a pane on srv as paneTarget describes.
func findPane(ctx context.Context, srv *supervisor.Server, p params) (tmux.Pane, error) {
	if id := p.str("pane_id"); id != "" {
		if !paneIDRe.MatchString(id) {
			return tmux.Pane{}, argError("pane_id", "want a pane ID like %%1; call list_panes")
		}
		return readPane(ctx, srv, tmux.PaneID(id))
	}
	wid := p.str("window_id")
	if wid != "" && !windowIDRe.MatchString(wid) {
		return tmux.Pane{}, argError("window_id", "want a window ID like @1; call list_windows")
	}
	sid, name, err := sessionRef(p)
	if err != nil {
		return tmux.Pane{}, err
	}
	panes, err := srv.ListPanes(ctx)
	if err != nil {
		return tmux.Pane{}, err
	}
	return pickPane(panes, tmux.WindowID(wid), sid, name)
}

// pickPane chooses from a listing (sessions in tmux's order, windows and
// panes by index) the first pane of window wid, else of the first window
// of the session named by sid or name, else of the first session.
func pickPane(panes []tmux.Pane, wid tmux.WindowID, sid tmux.SessionID, name string) (tmux.Pane, error) {
	if len(panes) == 0 {
		return tmux.Pane{}, &toolError{msg: "Object not found: no sessions exist", class: "session_not_found", hint: "Call create_session first."}
	}
	var best *tmux.Pane
	better := func(x *tmux.Pane) bool {
		return best == nil || x.WindowIndex < best.WindowIndex || (x.WindowIndex == best.WindowIndex && x.Index < best.Index)
	}
	switch {
	case wid != "":
		for i := range panes {
			if x := &panes[i]; x.WindowID == wid && (best == nil || (x.SessionID == best.SessionID && x.Index < best.Index)) {
				best = x
			}
		}
		if best == nil {
			return tmux.Pane{}, notFound("window_id="+string(wid), "window_not_found")
		}
		return *best, nil
	case sid == "" && name == "":
		sid = panes[0].SessionID
	}
	found := false
	for i := range panes {
		x := &panes[i]
		if (sid != "" && x.SessionID != sid) || (sid == "" && x.SessionName != name) {
			continue
		}
		found = true
		if better(x) {
			best = x
		}
	}
	switch {
	case !found && sid != "":
		return tmux.Pane{}, notFound("session_id="+string(sid), "session_not_found")
	case !found:
		return tmux.Pane{}, notFound("session_name="+name, "session_not_found")
	}
	return *best, nil
}

// paneStateFields are what readPane asks tmux for, in order.
var paneStateFields = []string{"pane_id", "session_id", "session_name", "window_id", "pane_pid", "pane_dead",
	"cursor_x", "cursor_y", "history_size", "history_limit", "pane_width", "pane_height", "alternate_on", "pane_in_mode"}

var paneStateFormat = formatOf(paneStateFields)

// formatOf joins #{field} formats with the unit separator, which tmux
// never prints itself.
func formatOf(fields []string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte('\x1f')
		}
		b.WriteString("#{" + f + "}")
	}
	return b.String()
}

// readPane reads one pane's state with one display-message. A pane that
// does not exist (or belongs to tmux-mcp's hidden session) is a "Pane not
// found" error.
func readPane(ctx context.Context, srv *supervisor.Server, id tmux.PaneID) (tmux.Pane, error) {
	f, err := displayFields(ctx, srv, id, paneStateFormat, len(paneStateFields))
	if err != nil {
		return tmux.Pane{}, err
	}
	n := func(i int) int { v, _ := strconv.Atoi(f[i]); return v }
	pn := tmux.Pane{ID: tmux.PaneID(f[0]), SessionID: tmux.SessionID(f[1]), SessionName: f[2], WindowID: tmux.WindowID(f[3]),
		PID: n(4), Dead: f[5] == "1", CursorX: n(6), CursorY: n(7), HistorySize: n(8), HistoryLimit: n(9),
		Width: n(10), Height: n(11), AlternateOn: f[12] == "1", InMode: f[13] == "1"}
	if pn.ID != id || pn.SessionName == tmux.HiddenSession {
		return tmux.Pane{}, paneNotFound(id)
	}
	return pn, nil
}

// displayFields runs display-message -p -t pane format and splits its one
// record into want fields (the last may hold newlines).
func displayFields(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, format string, want int) ([]string, error) {
	out, err := srv.Do(ctx, "display-message", "-p", "-t", string(pane), format)
	if errors.Is(err, tmux.ErrNotFound) {
		return nil, paneNotFound(pane)
	}
	if err != nil {
		return nil, err
	}
	f := strings.SplitN(strings.TrimSuffix(string(out), "\n"), "\x1f", want)
	if len(f) != want {
		return nil, fmt.Errorf("tools: display-message for %s: %d fields, want %d", pane, len(f), want)
	}
	return f, nil
}

func paneNotFound(id tmux.PaneID) error {
	return &toolError{msg: "Pane not found: " + string(id), class: "pane_not_found", hint: hintPanes}
}
