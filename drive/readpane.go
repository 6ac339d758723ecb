package drive

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// paneStateFields are what ReadPane asks tmux for, in order.
var paneStateFields = []string{"pane_id", "session_id", "session_name", "window_id", "pane_pid", "pane_dead",
	"cursor_x", "cursor_y", "history_size", "history_limit", "pane_width", "pane_height", "alternate_on", "pane_in_mode",
	"pane_current_command"}

var paneStateFormat = tmux.RecordFormat(paneStateFields...)

// ReadPane reads one pane's state with one display-message. A pane that
// does not exist (or belongs to tmux-mcp's hidden session) is a "Pane not
// found" error.
func ReadPane(ctx context.Context, srv *supervisor.Server, id tmux.PaneID) (tmux.Pane, error) {
	f, err := DisplayFields(ctx, srv, id, paneStateFields...)
	if err != nil {
		return tmux.Pane{}, err
	}
	return paneState(id, f)
}

// paneStateRecord decodes a pane's state read with paneStateFormat (one
// record), as ReadPane would.
func paneStateRecord(id tmux.PaneID, rec []byte) (tmux.Pane, error) {
	f, err := tmux.ParseRecord(rec, len(paneStateFields))
	if err != nil {
		return tmux.Pane{}, fmt.Errorf("read pane %s: %w", id, err)
	}
	return paneState(id, f)
}

// paneState makes a pane of the fields of paneStateFields.
func paneState(id tmux.PaneID, f []string) (tmux.Pane, error) {
	n := func(i int) int { v, _ := strconv.Atoi(f[i]); return v }
	pn := tmux.Pane{ID: tmux.PaneID(f[0]), SessionID: tmux.SessionID(f[1]), SessionName: f[2], WindowID: tmux.WindowID(f[3]),
		PID: n(4), Dead: f[5] == "1", CursorX: n(6), CursorY: n(7), HistorySize: n(8), HistoryLimit: n(9),
		Width: n(10), Height: n(11), AlternateOn: f[12] == "1", InMode: f[13] == "1",
		CurrentCommand: f[14]}
	if pn.ID != id || pn.SessionName == tmux.HiddenSession {
		return tmux.Pane{}, paneNotFound(id)
	}
	return pn, nil
}

// DisplayFields reads the format variables fields of pane as one record
// (supervisor.Server.DisplayRecord); a pane that does not exist is a
// "Pane not found" error.
func DisplayFields(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, fields ...string) ([]string, error) {
	f, err := srv.DisplayRecord(ctx, pane, fields...)
	if errors.Is(err, tmux.ErrNotFound) {
		return nil, paneNotFound(pane)
	}
	return f, err
}

func paneNotFound(id tmux.PaneID) error { return &PaneGoneError{Pane: id} }

// ReadCapture captures as req asks; a pane that does not exist is a
// PaneGoneError, a request the supervisor refuses a RangeError.
func ReadCapture(ctx context.Context, srv *supervisor.Server, req supervisor.CaptureRequest) (supervisor.Capture, error) {
	c, err := srv.Capture(ctx, req)
	switch {
	case err == nil:
		return c, nil
	case errors.Is(err, tmux.ErrNotFound):
		return c, paneNotFound(req.Pane)
	case errors.Is(err, supervisor.ErrInvalidArgument):
		return c, &RangeError{Err: err}
	}
	return c, err
}
