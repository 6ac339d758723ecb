package tools

import (
	"log/slog"
	"time"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
)

// Deps is what tool handlers need. Everything is passed in: handlers read
// no environment variables.
type Deps struct {
	Sup  *supervisor.Supervisor
	Tier Tier
	// Caller is the tmux pane this MCP process runs in, if any, as TMUX
	// and TMUX_PANE say at startup. The pane is also found without them,
	// from the process ancestry (guard/ownpane.go). It drives self-protection
	// and is_caller.
	Caller Caller
	// SocketDir is where list_servers looks for sockets:
	// ${TMUX_TMPDIR:-/tmp}/tmux-<euid>.
	SocketDir string
	// Events delivers supervisor events; nil means Sup.
	Events EventSource
	// Log receives one record per tool call (never arguments or pane text);
	// nil discards.
	Log *slog.Logger
	// Journal is the session journal; nil when it is off.
	Journal Journal
	// Jobs keeps background jobs across restarts (the journal's jobs);
	// nil keeps them in this process only.
	Jobs jobs.Store

	// Diagnoser writes the diagnose tool's report; nil makes the tool
	// answer that it is not available.
	Diagnoser Diagnoser

	// MaxWait is the ceiling on the timeout of tools that wait
	// (wait_for_text, run_command, wait_for_channel); 0 means
	// DefaultMaxWait.
	MaxWait time.Duration
	// ReadyTimeout bounds the wait for a new pane to be ready before the
	// first keys are sent to it (0: DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// PipeDirs are directories pipe_pane may write into, besides the
	// pane's current directory and the temporary directory.
	PipeDirs []string
	// AllowOwnPane lets tools type into, respawn, kill or clear the pane this
	// process runs in, and kill its window, session or server, at the
	// destructive tier, without asking the user; otherwise they ask
	// (elicitation) or refuse.
	AllowOwnPane bool
	// AllowSelfInput lets the tools that type (send_keys, send_keys_batch,
	// paste_text, paste_buffer, run_command) target the caller's own pane
	// at the destructive tier; otherwise they refuse it.
	AllowSelfInput bool
	// TempDir is where run_command makes its private directory (see
	// runFiles); "" is the system's temporary directory.
	TempDir string

	// bufNS is the prefix of this process's buffer names (set by New).
	bufNS string
	// own remembers the pane this process runs in, per server, and agents
	// the agent CLI last seen in each pane; Catalog sets them (initGuard).
	// selfPIDs, when set, stands in for the process ancestry.
	own      *guard.OwnPanes
	agents   *guard.Agents
	selfPIDs func() []int
	// index is the tools the server serves, for the batch tools (set by
	// New).
	index *toolIndex
	// panes serialises keystrokes per pane and remembers which panes are
	// ready; Catalog sets it, so every tool of one catalog shares it.
	panes *paneIO
	// runs holds run_command's files (set by New, or Catalog).
	runs *drive.Files
	// jobs are the background jobs (set by New, or by Catalog), and
	// jobFiles the files their lines source: unlike run_command's, they
	// stay when tmux-mcp stops, for the jobs that run on.
	jobs     *jobs.Table
	jobFiles *drive.Files
}

// Defaults of the Deps durations. DefaultMaxWait is libtmux-mcp's.
const (
	DefaultMaxWait      = 30 * time.Second
	DefaultReadyTimeout = 2 * time.Second
)

func (d Deps) maxWait() time.Duration {
	if d.MaxWait > 0 {
		return d.MaxWait
	}
	return DefaultMaxWait
}

// EventSource is the part of the supervisor that resources subscribe to.
type EventSource = mcpserver.EventSource

func (d Deps) events() EventSource {
	if d.Events != nil {
		return d.Events
	}
	return d.Sup
}

func (d Deps) log() *slog.Logger {
	if d.Log != nil {
		return d.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Caller identifies the pane the MCP process runs in (package guard's).
type Caller = guard.Caller

func (d Deps) readyTimeout() time.Duration {
	if d.ReadyTimeout > 0 {
		return d.ReadyTimeout
	}
	return DefaultReadyTimeout
}
