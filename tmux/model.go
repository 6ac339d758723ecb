package tmux

import (
	"fmt"
	"strconv"
)

// IDs as tmux prints them. They are unique per server and do not survive a
// server restart.
type (
	SessionID string // "$3"
	WindowID  string // "@7"
	PaneID    string // "%12"
)

// HiddenSession is the session the command connection attaches to. Every
// listing in this package leaves it out.
const HiddenSession = "__tmux_mcp"

// Session is one tmux session.
type Session struct {
	ID           SessionID `json:"session_id"`
	Name         string    `json:"session_name"`
	Created      int64     `json:"session_created"` // unix seconds
	Attached     int       `json:"session_attached"`
	Windows      int       `json:"window_count"`
	Group        string    `json:"session_group,omitempty"`
	Grouped      bool      `json:"session_grouped"`
	Activity     int64     `json:"session_activity"`
	ActivePaneID PaneID    `json:"active_pane_id"`
	ActiveWindow WindowID  `json:"active_window_id"`
}

// Window is one tmux window.
type Window struct {
	ID            WindowID  `json:"window_id"`
	Index         int       `json:"window_index"`
	Name          string    `json:"window_name"`
	SessionID     SessionID `json:"session_id"`
	SessionName   string    `json:"session_name"`
	Active        bool      `json:"window_active"`
	Panes         int       `json:"pane_count"`
	Layout        string    `json:"window_layout"`
	VisibleLayout string    `json:"window_visible_layout"`
	Width         int       `json:"window_width"`
	Height        int       `json:"window_height"`
	Zoomed        bool      `json:"window_zoomed_flag"`
	Flags         string    `json:"window_flags"`
	ActivePaneID  PaneID    `json:"active_pane_id"`
}

// Pane is one tmux pane.
type Pane struct {
	ID             PaneID    `json:"pane_id"`
	Index          int       `json:"pane_index"`
	SessionID      SessionID `json:"session_id"`
	SessionName    string    `json:"session_name"`
	WindowID       WindowID  `json:"window_id"`
	WindowIndex    int       `json:"window_index"`
	WindowName     string    `json:"window_name"`
	Active         bool      `json:"pane_active"`
	Width          int       `json:"pane_width"`
	Height         int       `json:"pane_height"`
	Left           int       `json:"pane_left"`
	Top            int       `json:"pane_top"`
	Right          int       `json:"pane_right"`
	Bottom         int       `json:"pane_bottom"`
	AtLeft         bool      `json:"pane_at_left"`
	AtRight        bool      `json:"pane_at_right"`
	AtTop          bool      `json:"pane_at_top"`
	AtBottom       bool      `json:"pane_at_bottom"`
	TTY            string    `json:"pane_tty"`
	PID            int       `json:"pane_pid"`
	CurrentCommand string    `json:"pane_current_command"`
	CurrentPath    string    `json:"pane_current_path"`
	Title          string    `json:"pane_title"`
	Dead           bool      `json:"pane_dead"`
	HistorySize    int       `json:"history_size"`
	HistoryLimit   int       `json:"history_limit"`
	AlternateOn    bool      `json:"alternate_on"`
	InMode         bool      `json:"pane_in_mode"`
	CursorX        int       `json:"cursor_x"`
	CursorY        int       `json:"cursor_y"`
	WindowActive   bool      `json:"window_active"`
	WindowZoomed   bool      `json:"window_zoomed_flag"`
}

// ServerInfo identifies a running server.
type ServerInfo struct {
	PID        int     `json:"pid"`
	Version    Version `json:"-"`
	SocketPath string  `json:"socket_path"`
	StartTime  int64   `json:"start_time"` // unix seconds
	Sessions   int     `json:"session_count"`
}

// field is one format variable and where its value goes in a T.
type field[T any] struct {
	name string
	set  func(*T, string) error
}

func str[T any](name string, dst func(*T) *string) field[T] {
	return field[T]{name, func(t *T, v string) error { *dst(t) = v; return nil }}
}

func num[T any](name string, dst func(*T) *int) field[T] {
	return field[T]{name, func(t *T, v string) error {
		if v == "" {
			*dst(t) = 0
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		*dst(t) = n
		return nil
	}}
}

func num64[T any](name string, dst func(*T) *int64) field[T] {
	return field[T]{name, func(t *T, v string) error {
		if v == "" {
			*dst(t) = 0
			return nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		*dst(t) = n
		return nil
	}}
}

func flag[T any](name string, dst func(*T) *bool) field[T] {
	return field[T]{name, func(t *T, v string) error { *dst(t) = v == "1"; return nil }}
}

func format[T any](fields []field[T]) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return RecordFormat(names...)
}

func parse[T any](fields []field[T], out []byte) ([]T, error) {
	recs, err := ParseRecords(out, len(fields))
	if err != nil {
		return nil, err
	}
	res := make([]T, 0, len(recs))
	for _, vals := range recs {
		var t T
		for i, f := range fields {
			if err := f.set(&t, vals[i]); err != nil {
				return nil, fmt.Errorf("tmux: parse: %w", err)
			}
		}
		res = append(res, t)
	}
	return res, nil
}

var sessionFields = []field[Session]{
	str("session_id", func(s *Session) *string { return (*string)(&s.ID) }),
	str("session_name", func(s *Session) *string { return &s.Name }),
	num64("session_created", func(s *Session) *int64 { return &s.Created }),
	num("session_attached", func(s *Session) *int { return &s.Attached }),
	num("session_windows", func(s *Session) *int { return &s.Windows }),
	str("session_group", func(s *Session) *string { return &s.Group }),
	flag("session_grouped", func(s *Session) *bool { return &s.Grouped }),
	num64("session_activity", func(s *Session) *int64 { return &s.Activity }),
	str("pane_id", func(s *Session) *string { return (*string)(&s.ActivePaneID) }),
	str("window_id", func(s *Session) *string { return (*string)(&s.ActiveWindow) }),
}

var windowFields = []field[Window]{
	str("window_id", func(w *Window) *string { return (*string)(&w.ID) }),
	num("window_index", func(w *Window) *int { return &w.Index }),
	str("window_name", func(w *Window) *string { return &w.Name }),
	str("session_id", func(w *Window) *string { return (*string)(&w.SessionID) }),
	str("session_name", func(w *Window) *string { return &w.SessionName }),
	flag("window_active", func(w *Window) *bool { return &w.Active }),
	num("window_panes", func(w *Window) *int { return &w.Panes }),
	str("window_layout", func(w *Window) *string { return &w.Layout }),
	str("window_visible_layout", func(w *Window) *string { return &w.VisibleLayout }),
	num("window_width", func(w *Window) *int { return &w.Width }),
	num("window_height", func(w *Window) *int { return &w.Height }),
	flag("window_zoomed_flag", func(w *Window) *bool { return &w.Zoomed }),
	str("window_flags", func(w *Window) *string { return &w.Flags }),
	str("pane_id", func(w *Window) *string { return (*string)(&w.ActivePaneID) }),
}

// paneFields are what tmux-mcp reads of every pane in one list-panes -a.
// Each field costs tmux a format expansion per pane on every listing, and
// some cost more: #{history_bytes} walks the whole history (left out: the
// diagnostics read it with their own probe), #{pane_current_command} and
// #{pane_current_path} read /proc. A field goes in only if something reads
// it from a listing; the journal lists panes with its own format.
var paneFields = []field[Pane]{
	str("pane_id", func(p *Pane) *string { return (*string)(&p.ID) }),
	num("pane_index", func(p *Pane) *int { return &p.Index }),
	str("session_id", func(p *Pane) *string { return (*string)(&p.SessionID) }),
	str("session_name", func(p *Pane) *string { return &p.SessionName }),
	str("window_id", func(p *Pane) *string { return (*string)(&p.WindowID) }),
	num("window_index", func(p *Pane) *int { return &p.WindowIndex }),
	str("window_name", func(p *Pane) *string { return &p.WindowName }),
	flag("pane_active", func(p *Pane) *bool { return &p.Active }),
	num("pane_width", func(p *Pane) *int { return &p.Width }),
	num("pane_height", func(p *Pane) *int { return &p.Height }),
	num("pane_left", func(p *Pane) *int { return &p.Left }),
	num("pane_top", func(p *Pane) *int { return &p.Top }),
	num("pane_right", func(p *Pane) *int { return &p.Right }),
	num("pane_bottom", func(p *Pane) *int { return &p.Bottom }),
	flag("pane_at_left", func(p *Pane) *bool { return &p.AtLeft }),
	flag("pane_at_right", func(p *Pane) *bool { return &p.AtRight }),
	flag("pane_at_top", func(p *Pane) *bool { return &p.AtTop }),
	flag("pane_at_bottom", func(p *Pane) *bool { return &p.AtBottom }),
	str("pane_tty", func(p *Pane) *string { return &p.TTY }),
	num("pane_pid", func(p *Pane) *int { return &p.PID }),
	str("pane_current_command", func(p *Pane) *string { return &p.CurrentCommand }),
	str("pane_title", func(p *Pane) *string { return &p.Title }),
	flag("pane_dead", func(p *Pane) *bool { return &p.Dead }),
	num("history_size", func(p *Pane) *int { return &p.HistorySize }),
	num("history_limit", func(p *Pane) *int { return &p.HistoryLimit }),
	flag("alternate_on", func(p *Pane) *bool { return &p.AlternateOn }),
	flag("pane_in_mode", func(p *Pane) *bool { return &p.InMode }),
	num("cursor_x", func(p *Pane) *int { return &p.CursorX }),
	num("cursor_y", func(p *Pane) *int { return &p.CursorY }),
	flag("window_active", func(p *Pane) *bool { return &p.WindowActive }),
	flag("window_zoomed_flag", func(p *Pane) *bool { return &p.WindowZoomed }),
	str("pane_current_path", func(p *Pane) *string { return &p.CurrentPath }),
}

var (
	sessionFormat = format(sessionFields)
	windowFormat  = format(windowFields)
	paneFormat    = format(paneFields)
)
