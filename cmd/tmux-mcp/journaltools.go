package main

import (
	"context"
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/journal"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tools"
	"github.com/tmux-mcp/tmux-mcp/view"
)

// journalTools gives the journal tools a *journal.Journal: it converts the
// journal's records to the tools' result types and applies --restore.
type journalTools struct {
	j       *journal.Journal
	restore string // auto, manual or off
}

// toolsJournal returns what tools.Deps.Journal gets: nil (not a typed nil)
// when the journal is off.
func toolsJournal(j *journal.Journal, restore string) tools.Journal {
	if j == nil {
		return nil
	}
	return journalTools{j: j, restore: restore}
}

func (a journalTools) Events(sock tmux.Socket, since time.Time, limit int) ([]tools.JournalEvent, error) {
	records, err := a.j.Events(sock, since, limit)
	out := make([]tools.JournalEvent, 0, len(records))
	for _, r := range records {
		out = append(out, tools.JournalEvent{Seq: r.Seq, Time: r.Time, Type: string(r.Type), PID: r.PID,
			Cause: string(r.Cause), Detail: r.Detail, Notification: r.Notification})
	}
	return out, err
}

func (a journalTools) Snapshots(sock tmux.Socket, limit int) ([]tools.SnapshotSummary, error) {
	list, err := a.j.Snapshots(sock, limit)
	out := make([]tools.SnapshotSummary, 0, len(list))
	for _, s := range list {
		out = append(out, tools.SnapshotSummary{Snapshot: s.Seq, Taken: s.Taken, ServerPID: s.ServerPID,
			Sessions: s.Sessions, Windows: s.Windows, Panes: s.Panes})
	}
	return out, err
}

// errRestoreOff is the error of a restore asked for with --restore off.
var errRestoreOff = errors.New("restores are turned off (--restore off)")

func (a journalTools) Restore(ctx context.Context, srv *supervisor.Server, req tools.RestoreRequest) (tools.RestoreSummary, error) {
	if a.restore == "off" && !req.DryRun {
		return tools.RestoreSummary{}, errRestoreOff
	}
	r, err := a.j.RestoreSnapshot(ctx, srv, journal.RestoreRequest{Snapshot: req.Snapshot, DryRun: req.DryRun, ResumeAgents: req.ResumeAgents})
	// Each agent's outcome is one of the notes (journal.planner.agentOutcome).
	return tools.RestoreSummary{Snapshot: r.Snapshot, DryRun: r.DryRun, Steps: r.Steps, Applied: r.Applied,
		IDs: r.IDs, Notes: r.Notes, Errors: r.Errors}, err
}

func (a journalTools) RecordCreated(sock tmux.Socket, pane tmux.PaneID, argv []string, cwd string, env []string, restoreCommand bool) {
	a.j.RecordCreated(sock, pane, argv, cwd, env, restoreCommand)
}

func (a journalTools) Resolve(sock tmux.Socket, oldID string) (string, bool) {
	return a.j.Resolve(sock, oldID)
}

func (a journalTools) AgentReturns(sock tmux.Socket) (map[tmux.PaneID]tools.AgentReturn, error) {
	rs, err := a.j.AgentReturns(sock)
	if err != nil {
		return nil, err
	}
	out := make(map[tmux.PaneID]tools.AgentReturn, len(rs))
	for id, r := range rs {
		switch {
		case r.CameBack:
			out[id] = tools.AgentReturn{Return: view.CameBack, Why: "resumed conversation " + r.Conversation}
		case r.Resumed && a.restore == "auto":
			out[id] = tools.AgentReturn{Return: view.ComesBack, Why: "resumes conversation " + r.Conversation}
		case r.Resumed:
			out[id] = tools.AgentReturn{Return: view.NotResumed, Why: "restores are --restore " + a.restore + "; restore_sessions resumes conversation " + r.Conversation}
		default:
			out[id] = tools.AgentReturn{Return: view.NotResumed, Why: r.Reason}
		}
	}
	return out, nil
}

// toolsJobs returns what tools.Deps.Jobs gets: the journal itself, which
// stores the jobs' records as they are (and Flush makes them durable:
// jobs.Table.Durable); nil (not a typed nil) when the journal is off.
func toolsJobs(j *journal.Journal) jobs.Store {
	if j == nil {
		return nil
	}
	return j
}
