package jobrecord

import (
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Job states.
const (
	Running = "running"
	Exited  = "exited"
	Lost    = "lost"
)

// KindCall is Record.Kind of a tool call that became an MCP task; ""
// is a background command (run_command with background).
const KindCall = "call"

// Record is a job: enough to list it after tmux-mcp restarts, to find its
// end again (its nonce and where the pane's history stood when it was
// typed), and what was known of it when it ended or was lost. It holds no
// command line.
type Record struct {
	ID          string      `json:"id"`
	Socket      tmux.Socket `json:"socket"`
	Pane        tmux.PaneID `json:"pane"`
	SessionID   string      `json:"session_id,omitempty"`
	SessionName string      `json:"session_name,omitempty"`
	// Nonce names the job's end (a pane option) and its wait-for channel.
	Nonce      string    `json:"nonce"`
	State      string    `json:"state"` // Running, Exited or Lost
	ExitStatus *int      `json:"exit_status,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended,omitzero"`
	// ServerPID and PanePID identify the server and the pane's process the
	// job ran under: another PID is another server or a respawned pane.
	ServerPID int `json:"server_pid"`
	PanePID   int `json:"pane_pid"`
	// Anchor is where the pane's history stood when the job was typed
	// (its fields read as the record's own: rec.HistorySize).
	Anchor `json:"anchor"`
	// Before are the processes below the pane's process just before the
	// job was typed: they are not the job's.
	Before []int `json:"before,omitempty"`
	// File is the file the typed line sources; it removes itself when the
	// shell reads it (and goes when the job ends, if the shell never did).
	File string `json:"file,omitempty"`
	// Tail is the end of the output as last read, bounded by the engine
	// (its tail caps).
	Tail              []string `json:"tail,omitempty"`
	TruncatedLines    int      `json:"truncated_lines,omitempty"`
	HistoryOverflowed bool     `json:"history_overflowed,omitempty"`
	// Proc is the PID of the tmux-mcp process that watches the job.
	Proc int `json:"proc"`
	// Kind is KindCall for an MCP task's call, whose task Call describes;
	// "" for a command.
	Kind string `json:"kind,omitempty"`
	Call *Call  `json:"call,omitempty"`
}

// Anchor is where a pane's history stood when a job was typed into it.
type Anchor struct {
	HistorySize  int `json:"history_size"`
	HistoryLimit int `json:"history_limit"`
	Width        int `json:"width"`
	Height       int `json:"height"`
	CursorY      int `json:"cursor_y"`
	// Lines is how many lines the job's command shows as from the
	// prompt's row (0 in records of before: one).
	Lines int `json:"lines,omitempty"`
}
