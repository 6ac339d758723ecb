package tools

import (
	"strconv"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The result models carry libtmux-mcp's field names and JSON types
// (several numbers are strings there, for compatibility).

// SessionInfo is one session.
type SessionInfo struct {
	SessionID       string `json:"session_id"`
	SessionName     string `json:"session_name"`
	WindowCount     int    `json:"window_count"`
	SessionAttached string `json:"session_attached"`
	SessionCreated  string `json:"session_created"`
	ActivePaneID    string `json:"active_pane_id"`
	// IsCaller: the session holds the pane tmux-mcp runs in (null when
	// tmux-mcp does not run in tmux, as far as it can tell).
	IsCaller *bool `json:"is_caller"`
}

// WindowInfo is one window.
type WindowInfo struct {
	WindowID     string `json:"window_id"`
	WindowName   string `json:"window_name"`
	WindowIndex  string `json:"window_index"`
	SessionID    string `json:"session_id"`
	SessionName  string `json:"session_name"`
	PaneCount    int    `json:"pane_count"`
	WindowLayout string `json:"window_layout"`
	WindowActive string `json:"window_active"`
	WindowWidth  string `json:"window_width"`
	WindowHeight string `json:"window_height"`
	ActivePaneID string `json:"active_pane_id"`
	// IsCaller: the window holds the pane tmux-mcp runs in.
	IsCaller *bool `json:"is_caller"`
}

// PaneInfo is one pane. IsCaller is nil when tmux-mcp does not run inside
// tmux (as far as it can tell), and true only for the pane it runs in.
type PaneInfo struct {
	PaneID             string `json:"pane_id"`
	PaneIndex          string `json:"pane_index"`
	PaneWidth          string `json:"pane_width"`
	PaneHeight         string `json:"pane_height"`
	PaneLeft           int    `json:"pane_left"`
	PaneTop            int    `json:"pane_top"`
	PaneRight          int    `json:"pane_right"`
	PaneBottom         int    `json:"pane_bottom"`
	PaneAtLeft         bool   `json:"pane_at_left"`
	PaneAtRight        bool   `json:"pane_at_right"`
	PaneAtTop          bool   `json:"pane_at_top"`
	PaneAtBottom       bool   `json:"pane_at_bottom"`
	PaneTTY            string `json:"pane_tty"`
	PaneCurrentCommand string `json:"pane_current_command"`
	PaneCurrentPath    string `json:"pane_current_path"`
	PanePID            string `json:"pane_pid"`
	PaneTitle          string `json:"pane_title"`
	PaneActive         string `json:"pane_active"`
	WindowID           string `json:"window_id"`
	SessionID          string `json:"session_id"`
	IsCaller           *bool  `json:"is_caller"`
	// Agent is the agent CLI the pane runs, if any, and its state.
	Agent *AgentInfo `json:"agent,omitempty"`
}

// ServerInfo is one tmux server.
type ServerInfo struct {
	IsAlive      bool    `json:"is_alive"`
	SocketName   *string `json:"socket_name"`
	SocketPath   *string `json:"socket_path"`
	SessionCount int     `json:"session_count"`
	Version      *string `json:"version"`
	// Refused is why tmux-mcp did not connect to the socket (list_servers:
	// another user owns it, or a directory above it, or listens on it).
	Refused *string `json:"refused,omitempty"`
	// Owner is the program whose server this is (list_servers: an agent
	// team's private server, which tmux-mcp never starts or restores).
	Owner *string `json:"owner,omitempty"`
	// Agents counts the panes running each known agent CLI (list_servers).
	Agents map[string]int `json:"agents,omitempty"`
}

func flag01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func sessionInfo(s tmux.Session) SessionInfo {
	return SessionInfo{
		SessionID:       string(s.ID),
		SessionName:     s.Name,
		WindowCount:     s.Windows,
		SessionAttached: strconv.Itoa(s.Attached),
		SessionCreated:  strconv.FormatInt(s.Created, 10),
		ActivePaneID:    string(s.ActivePaneID),
	}
}

func windowInfo(w tmux.Window) WindowInfo {
	return WindowInfo{
		WindowID:     string(w.ID),
		WindowName:   w.Name,
		WindowIndex:  strconv.Itoa(w.Index),
		SessionID:    string(w.SessionID),
		SessionName:  w.SessionName,
		PaneCount:    w.Panes,
		WindowLayout: w.Layout,
		WindowActive: flag01(w.Active),
		WindowWidth:  strconv.Itoa(w.Width),
		WindowHeight: strconv.Itoa(w.Height),
		ActivePaneID: string(w.ActivePaneID),
	}
}

// paneInfoFields are the fields paneInfo reads: listings that only feed
// it ask tmux for these (srv.ListPanesWith) and not for every field.
var paneInfoFields = []string{"pane_id", "pane_index", "pane_width", "pane_height", "pane_left", "pane_top",
	"pane_right", "pane_bottom", "pane_at_left", "pane_at_right", "pane_at_top", "pane_at_bottom", "pane_tty",
	"pane_current_command", "pane_current_path", "pane_pid", "pane_title", "pane_active", "window_id", "session_id", "pane_dead"}

// paneInfo converts p; sock is the server p lives on, for is_caller.
func (d Deps) paneInfo(p tmux.Pane, sock tmux.Socket) PaneInfo {
	return PaneInfo{
		PaneID:             string(p.ID),
		PaneIndex:          strconv.Itoa(p.Index),
		PaneWidth:          strconv.Itoa(p.Width),
		PaneHeight:         strconv.Itoa(p.Height),
		PaneLeft:           p.Left,
		PaneTop:            p.Top,
		PaneRight:          p.Right,
		PaneBottom:         p.Bottom,
		PaneAtLeft:         p.AtLeft,
		PaneAtRight:        p.AtRight,
		PaneAtTop:          p.AtTop,
		PaneAtBottom:       p.AtBottom,
		PaneTTY:            p.TTY,
		PaneCurrentCommand: p.CurrentCommand,
		PaneCurrentPath:    p.CurrentPath,
		PanePID:            strconv.Itoa(p.PID),
		PaneTitle:          p.Title,
		PaneActive:         flag01(p.Active),
		WindowID:           string(p.WindowID),
		SessionID:          string(p.SessionID),
		IsCaller:           d.guard().IsCaller(p.ID, sock),
	}
}
