package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// The typed queries of a Client: the server's identity, its sessions,
// windows and panes (hidden session left out) as the models of model.go,
// and a pane's contents.

// infoFormat is what Info reads with display-message.
var infoFormat = RecordFormat("pid", "version", "socket_path", "start_time")

// Info returns the server's identity and session count (hidden session not
// counted).
// Over control mode its two commands go out back to back: one round trip.
func (c *Client) Info(ctx context.Context) (ServerInfo, error) {
	display := []string{"display-message", "-p", infoFormat}
	list := []string{"list-sessions", "-F", sessionFormat}
	var out, listed []byte
	var err error
	if ctrl := c.Control(); ctrl != nil {
		outs, errs := ctrl.Pipeline(ctx, display, list)
		if err = errors.Join(errs...); err != nil {
			return ServerInfo{}, err
		}
		out, listed = outs[0], outs[1]
	} else {
		if out, err = c.Run(ctx, display...); err != nil {
			return ServerInfo{}, err
		}
		if listed, err = c.Run(ctx, list...); err != nil {
			return ServerInfo{}, err
		}
	}
	f, err := ParseRecord(out, 4)
	if err != nil {
		return ServerInfo{}, fmt.Errorf("tmux: parse server info: %w", err)
	}
	var info ServerInfo
	info.PID, _ = strconv.Atoi(f[0])
	info.Version, _ = ParseVersion(f[1])
	info.SocketPath = f[2]
	info.StartTime, _ = strconv.ParseInt(f[3], 10, 64)
	sessions, err := parseSessions(listed)
	if err != nil {
		return ServerInfo{}, err
	}
	info.Sessions = len(sessions)
	return info, nil
}

// ListSessions returns every session but the hidden one.
func (c *Client) ListSessions(ctx context.Context) ([]Session, error) {
	out, err := c.Run(ctx, "list-sessions", "-F", sessionFormat)
	if err != nil {
		return nil, err
	}
	return parseSessions(out)
}

// parseSessions parses list-sessions output in sessionFormat.
func parseSessions(out []byte) ([]Session, error) {
	all, err := parse(sessionFields, out)
	return withoutHidden(all, func(s Session) string { return s.Name }), err
}

// ListWindows returns every window of every session but the hidden one.
func (c *Client) ListWindows(ctx context.Context) ([]Window, error) {
	out, err := c.Run(ctx, "list-windows", "-a", "-F", windowFormat)
	if err != nil {
		return nil, err
	}
	all, err := parse(windowFields, out)
	return withoutHidden(all, func(w Window) string { return w.SessionName }), err
}

// ListPanes returns every pane of every session but the hidden one.
func (c *Client) ListPanes(ctx context.Context) ([]Pane, error) {
	out, err := c.Run(ctx, "list-panes", "-a", "-F", paneFormat)
	if err != nil {
		return nil, err
	}
	all, err := parse(paneFields, out)
	return withoutHidden(all, func(p Pane) string { return p.SessionName }), err
}

// Pane returns the pane id as ListPanes would, reading only the panes of
// its window: a call that targets one pane costs tmux that window, not
// every pane of the server. A pane that does not exist, or that is in
// tmux-mcp's hidden session, is an error matching ErrPaneNotFound.
func (c *Client) Pane(ctx context.Context, id PaneID) (Pane, error) {
	out, err := c.Run(ctx, "list-panes", "-t", string(id), "-F", paneFormat)
	if err != nil {
		return Pane{}, err
	}
	panes, err := parse(paneFields, out)
	if err != nil {
		return Pane{}, err
	}
	for _, p := range withoutHidden(panes, func(p Pane) string { return p.SessionName }) {
		if p.ID == id {
			return p, nil
		}
	}
	return Pane{}, fmt.Errorf("%w: %s", ErrPaneNotFound, id)
}

// ListPanesWith is ListPanes reading only the named fields (names of
// the format variables, such as "pane_tty"), and pane_id, session_id and
// session_name: the others are left zero. Each field costs tmux a format
// expansion per pane, and some cost more (pane_current_command and
// pane_current_path read /proc), so a caller asks for what it reads. An
// unknown name is an error.
func (c *Client) ListPanesWith(ctx context.Context, names ...string) ([]Pane, error) {
	want := map[string]bool{"pane_id": true, "session_id": true, "session_name": true}
	for _, n := range names {
		want[n] = true
	}
	var fields []field[Pane]
	for _, f := range paneFields {
		if want[f.name] {
			fields = append(fields, f)
			delete(want, f.name)
		}
	}
	if len(want) > 0 {
		return nil, fmt.Errorf("tmux: list panes: unknown fields %v", slices.Sorted(maps.Keys(want)))
	}
	out, err := c.Run(ctx, "list-panes", "-a", "-F", format(fields))
	if err != nil {
		return nil, err
	}
	all, err := parse(fields, out)
	return withoutHidden(all, func(p Pane) string { return p.SessionName }), err
}

func withoutHidden[T any](all []T, session func(T) string) []T {
	out := all[:0]
	for _, t := range all {
		if session(t) != HiddenSession {
			out = append(out, t)
		}
	}
	return out
}

// CaptureOptions selects what capture-pane returns.
type CaptureOptions struct {
	Target string // pane ID ("%3") or target
	Start  string // -S: "" for the top of the visible screen, "-N" for N lines of history, "-" for all
	End    string // -E: "" for the bottom of the visible screen
	Join   bool   // -J: join wrapped lines
	Escape bool   // -e: keep colour and attribute escapes
}

func (o CaptureOptions) args() []string {
	var a []string
	if o.Start != "" {
		a = append(a, "-S", o.Start)
	}
	if o.End != "" {
		a = append(a, "-E", o.End)
	}
	if o.Join {
		a = append(a, "-J")
	}
	if o.Escape {
		a = append(a, "-e")
	}
	return append(a, "-t", o.Target)
}

// Capture returns a pane's contents, one "\n"-terminated line per row.
// Over control mode on tmux before 3.6, where capture-pane -p leaks the
// capture inside the server (ControlCapture), it captures over its own
// client connection instead (Exec: no process, about as fast as the named
// buffer a control connection would need, which 3.4 and 3.5a could crash
// on, ControlBuffersCrash, and which notifies every control client).
func (c *Client) Capture(ctx context.Context, o CaptureOptions) ([]byte, error) {
	out, _, _, err := c.CaptureThen(ctx, o, "")
	return out, err
}

// CaptureThen is Capture followed, in the same round trip, by
// display-message -p of the format then for the same target (when then
// is not ""), whose one line it returns apart: the pane's state just
// after the capture. Over one client connection (before 3.6) the two run
// in one command queue, with nothing between them. via is the transport
// that carried the capture: before 3.6 the client connection (Exec) even
// while the control connection is up.
func (c *Client) CaptureThen(ctx context.Context, o CaptureOptions, then string) (content, state []byte, via Transport, err error) {
	args := append([]string{"capture-pane", "-p"}, o.args()...)
	display := []string{"display-message", "-p", "-t", o.Target, then}
	if ctrl := c.Control(); ctrl != nil {
		v, err := c.ServerVersion(ctx)
		if err != nil {
			return nil, nil, ctrl, err
		}
		if v.Capabilities().ControlCapture {
			if then == "" {
				out, err := ctrl.Run(ctx, args...)
				return out, nil, ctrl, err
			}
			outs, errs := ctrl.Pipeline(ctx, args, display)
			if errs[0] != nil {
				return nil, nil, ctrl, errs[0]
			}
			return outs[0], bytes.TrimSuffix(outs[1], []byte("\n")), ctrl, errs[1]
		}
	}
	if then == "" {
		out, err := c.exec.Run(ctx, args...)
		return out, nil, c.exec, err
	}
	out, err := c.exec.RunSequence(ctx, args, display)
	if err != nil {
		return nil, nil, c.exec, err
	}
	// The capture's lines, then the display's one line.
	out = bytes.TrimSuffix(out, []byte("\n"))
	i := bytes.LastIndexByte(out, '\n')
	return out[:i+1], out[i+1:], c.exec, nil
}
