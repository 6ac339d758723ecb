package main

import (
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/diagnostics"
	"github.com/tmux-mcp/tmux-mcp/journal"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// diagnoseJournal adapts package journal to what diagnose reads of it. It
// only reads.
type diagnoseJournal struct{ j *journal.Journal }

// diagnosticsJournal returns j for diagnose, or nil (diagnose then says it
// has no journal) when the journal is off.
func diagnosticsJournal(j *journal.Journal) diagnostics.Journal {
	if j == nil {
		return nil
	}
	return diagnoseJournal{j}
}

func (d diagnoseJournal) Path() string { return d.j.Path() }

func (d diagnoseJournal) Check() error { return d.j.Check() }

func (d diagnoseJournal) Servers() ([]string, error) {
	servers, err := d.j.Servers()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(servers))
	for _, s := range servers {
		out = append(out, s.Socket)
	}
	return out, nil
}

func (d diagnoseJournal) Events(path string, since time.Time) ([]supervisor.Event, error) {
	recs, err := d.j.Events(tmux.Socket{Path: path}, since, 0)
	if err != nil {
		return nil, err
	}
	out := make([]supervisor.Event, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.Event)
	}
	return out, nil
}

func (d diagnoseJournal) LastSnapshot(path string) (diagnostics.SnapshotInfo, bool, error) {
	snap, err := d.j.Snapshot(tmux.Socket{Path: path}, 0)
	if errors.Is(err, journal.ErrNoSnapshot) {
		return diagnostics.SnapshotInfo{}, false, nil
	}
	if err != nil {
		return diagnostics.SnapshotInfo{}, false, err
	}
	sessions, windows, panes := snap.Counts()
	info := diagnostics.SnapshotInfo{Taken: snap.Taken, PID: snap.Server.PID, Version: snap.Server.Version,
		Sessions: sessions, Windows: windows, Panes: panes}
	if snap.Server.StartTime > 0 {
		info.Started = time.Unix(snap.Server.StartTime, 0)
	}
	return info, true, nil
}
