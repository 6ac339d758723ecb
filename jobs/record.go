package jobs

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

// Store keeps jobs across tmux-mcp restarts. cmd/tmux-mcp passes one over
// the journal; nil keeps jobs in this process only.
type Store interface {
	// PutJob records a job; it never blocks. A record of a job that
	// ended is never replaced by one that says it runs.
	PutJob(Record)
	// Jobs returns the jobs of every server, oldest first.
	Jobs() ([]Record, error)
}

// Record is what the store keeps of a job. It holds no command line.
type Record struct {
	ID          string
	Socket      tmux.Socket
	Pane        tmux.PaneID
	SessionID   string
	SessionName string
	Nonce       string // names the end's pane option and the wait-for channel
	State       string
	ExitStatus  *int
	Reason      string
	Started     time.Time
	Ended       time.Time
	ServerPID   int
	PanePID     int
	// Where the pane's history stood when the job was typed.
	HistorySize, HistoryLimit, Width, Height, CursorY int
	// Lines is how many lines the command shows as, the prompt's among
	// them (0 in records of before: 1).
	Lines int
	// Before are the processes below the pane's process just before the
	// job was typed: they are not the job's.
	Before []int
	// File is the file the typed line sources; it removes itself when the
	// shell reads it (and goes when the job ends, if the shell never did).
	File string
	// Tail is the end of the output as last read (tailMaxLines,
	// tailMaxBytes).
	Tail              []string
	TruncatedLines    int
	HistoryOverflowed bool
	Proc              int // the tmux-mcp process that watches it
	// Kind is "" for a command, KindCall for a call (call.go), whose
	// task Call describes.
	Kind string
	Call *Call
}
