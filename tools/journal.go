package tools

import (
	"context"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Journal is what the journal tools need of the session journal.
// cmd/tmux-mcp passes one over *journal.Journal; a nil Journal means the
// journal is off.
type Journal interface {
	// Events returns the events of sock's server since the given time,
	// oldest first, at most limit (the newest).
	Events(sock tmux.Socket, since time.Time, limit int) ([]JournalEvent, error)
	// Snapshots lists the stored snapshots of sock's server, newest first.
	Snapshots(sock tmux.Socket, limit int) ([]SnapshotSummary, error)
	// Restore restores srv from a snapshot, or only plans it.
	Restore(ctx context.Context, srv *supervisor.Server, req RestoreRequest) (RestoreSummary, error)
	// RecordCreated records how a tool created pane: the exact argv
	// (empty for the default shell), working directory and environment
	// (KEY=VALUE) it used, and whether a restore re-runs its command. It
	// never blocks.
	RecordCreated(sock tmux.Socket, pane tmux.PaneID, argv []string, cwd string, env []string, restoreCommand bool)
	// Resolve returns the ID of the object a restore put in place of
	// oldID on sock's server, if it belongs to the server's current
	// instance.
	Resolve(sock tmux.Socket, oldID string) (string, bool)
	// AgentReturns says, per pane of sock's server that runs an agent CLI
	// (by the latest snapshot), what becomes of the agent when tmux dies:
	// what a restore would do with it, or that a restore brought it back.
	AgentReturns(sock tmux.Socket) (map[tmux.PaneID]AgentReturn, error)
}

// AgentReturn is what becomes of a pane's agent CLI when tmux dies, as the
// view shows it (view.Agent's Return and ReturnWhy).
type AgentReturn struct {
	Return string // view.ComesBack, view.CameBack or view.NotResumed
	Why    string // the conversation, or why it is not resumed
}

// recordCreated tells the journal, when it is on, how a tool created pane.
// env holds the NAME=VALUE variables the tool set.
func (d Deps) recordCreated(srv *supervisor.Server, pane tmux.PaneID, argv []string, cwd string, env []string, restore bool) {
	if d.Journal == nil || pane == "" {
		return
	}
	d.Journal.RecordCreated(srv.Socket(), pane, argv, cwd, env, restore)
}

// pRestoreCommand is the opt-in of the tools that create panes.
var pRestoreCommand = mcp.WithBoolean("restore_command")

// JournalEvent is one entry of a server's event log.
type JournalEvent struct {
	Seq          uint64    `json:"seq"`
	Time         time.Time `json:"time"`
	Type         string    `json:"type"`
	PID          int       `json:"pid,omitempty"`
	Cause        string    `json:"cause,omitempty"`
	Detail       string    `json:"detail,omitempty"`
	Notification string    `json:"notification,omitempty"`
}

// SnapshotSummary describes one stored snapshot.
type SnapshotSummary struct {
	Snapshot  uint64    `json:"snapshot"`
	Taken     time.Time `json:"taken"`
	ServerPID int       `json:"server_pid"`
	Sessions  int       `json:"sessions"`
	Windows   int       `json:"windows"`
	Panes     int       `json:"panes"`
}

// RestoreSummary says what a restore did, or would do.
type RestoreSummary struct {
	Snapshot uint64            `json:"snapshot"`
	DryRun   bool              `json:"dry_run"`
	Steps    []string          `json:"steps"`
	Applied  int               `json:"applied"`
	IDs      map[string]string `json:"ids,omitempty"`
	Notes    []string          `json:"notes,omitempty"`
	Errors   []string          `json:"errors,omitempty"`
}

// RestoreRequest is what restore_sessions asks of the journal.
type RestoreRequest struct {
	Snapshot     uint64 // 0: the latest snapshot of an earlier server
	DryRun       bool
	ResumeAgents bool // resume the agent CLIs of the restored panes
}

var journalEventSchema = tooldef.Record(tString, []string{"time", "type"},
	map[string]any{"seq": tInt, "pid": tInt, "cause": tString, "detail": tString, "notification": tString})

var snapshotInfoSchema = tooldef.Record(tInt, []string{"snapshot", "server_pid", "sessions", "windows", "panes"},
	map[string]any{"taken": tString})

// restoreSchema: steps, and notes and errors when there are any, are lists
// of strings (the record's common type).
var restoreSchema = tooldef.Record(tStrings, []string{"steps"}, map[string]any{
	"snapshot": tInt, "dry_run": tBool, "applied": tInt,
	"ids": map[string]any{"type": "object", "additionalProperties": tString},
})

var pLimit = mcp.WithInteger("limit", mcp.Min(1), mcp.Max(1000))

// JournalEvents lists a server's journal: deaths, restarts, restores,
// structural changes, snapshots.
func JournalEvents(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("journal_events", "Journal of a tmux server: deaths, restarts, restores, changes, snapshots (newest last).",
		tooldef.Read, pageOf("result", journalEventSchema),
		mcp.WithString("since"), pLimit, pFilters, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		sock, la, err := d.listOnSocket(p, 50)
		if err != nil {
			return nil, err
		}
		since, err := sinceArg(p.Str("since"), time.Now())
		if err != nil {
			return nil, err
		}
		j, err := d.journal()
		if err != nil {
			return nil, err
		}
		events, err := j.Events(sock, since, 0)
		if err != nil {
			return nil, journalError(err)
		}
		pg, err := tooldef.Paginate(events, la.Filters, la.Limit, true)
		if err != nil {
			return nil, err
		}
		return listPage(pg, "the oldest; raise limit or pass since")
	})
}

// ListSnapshots lists the stored snapshots of a server's session tree.
func ListSnapshots(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("list_snapshots", "Stored snapshots of a tmux server's session tree, newest first.",
		tooldef.Read, pageOf("result", snapshotInfoSchema), pLimit, pFilters, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		sock, la, err := d.listOnSocket(p, 20)
		if err != nil {
			return nil, err
		}
		j, err := d.journal()
		if err != nil {
			return nil, err
		}
		snaps, err := j.Snapshots(sock, 0)
		if err != nil {
			return nil, journalError(err)
		}
		pg, err := tooldef.Paginate(snaps, la.Filters, la.Limit, false)
		if err != nil {
			return nil, err
		}
		return listPage(pg, "the oldest; raise limit")
	})
}

// RestoreSessions restores sessions, windows and panes from a snapshot;
// what exists is left alone.
func RestoreSessions(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("restore_sessions", "Recreate a snapshot's sessions, windows and panes; existing ones are kept.",
		tooldef.Mutate, restoreSchema,
		mcp.WithBoolean("dry_run"), mcp.WithInteger("snapshot", mcp.Min(1)), mcp.WithBoolean("resume_agents"), pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		j, err := d.journal()
		if err != nil {
			return nil, err
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		seq, _ := p.Int("snapshot")
		res, err := j.Restore(ctx, srv, RestoreRequest{Snapshot: uint64(seq), DryRun: p.Bool("dry_run"), ResumeAgents: p.Bool("resume_agents")})
		if err != nil {
			if te := asToolError(err); te != nil {
				return nil, te
			}
			return nil, journalError(err)
		}
		return structured(res)
	})
}

func (d Deps) journal() (Journal, error) {
	if d.Journal == nil {
		return nil, &toolError{msg: "the session journal is off", class: "journal_off",
			hint: "Start tmux-mcp with --journal PATH (or without --journal off)."}
	}
	return d.Journal, nil
}

// journalError makes a journal failure an error result: the journal is
// a file that may be busy or unreadable, not a bug.
func journalError(err error) error {
	return &toolError{msg: "journal: " + strings.TrimPrefix(err.Error(), "journal: "), class: "journal"}
}

// sinceArg parses "1h30m" (that long before now) or an RFC 3339 time; ""
// is the beginning.
func sinceArg(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, tooldef.BadArg("since", `want a duration such as "1h" or an RFC 3339 time`)
}
