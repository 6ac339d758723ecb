package diagnostics

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
)

// Journal is the part of tmux-mcp's journal that diagnose reads; it never
// writes. cmd/tmux-mcp adapts package journal to it.
type Journal interface {
	// Path is the journal file, for the report.
	Path() string
	// Check reports whether the file is sound: nil, or what is wrong.
	Check() error
	// Servers lists the socket paths of the servers the journal knows.
	Servers() ([]string, error)
	// Events returns the events logged for the server on the socket at
	// path since the given time, oldest first.
	Events(path string, since time.Time) ([]supervisor.Event, error)
	// LastSnapshot summarises the latest snapshot of that server; ok is
	// false when there is none.
	LastSnapshot(path string) (snap SnapshotInfo, ok bool, err error)
}

// SnapshotInfo summarises a journal snapshot: when it was taken, and of
// which server process.
type SnapshotInfo struct {
	Taken   time.Time
	PID     int
	Started time.Time // the server's #{start_time}
	Version string
	// Sessions, Windows and Panes count what the snapshot holds.
	Sessions, Windows, Panes int
}

// journalFacts is what the journal says about one server.
type journalFacts struct {
	err     error // reading failed
	events  []supervisor.Event
	snap    SnapshotInfo
	hasSnap bool
}

// lastServer returns the PID and start time of the last server process the
// journal saw on this socket; started is zero when only an event named it.
func (j *journalFacts) lastServer() (pid int, started time.Time) {
	if j == nil {
		return 0, time.Time{}
	}
	var last supervisor.Event
	for i := len(j.events) - 1; i >= 0; i-- {
		if e := j.events[i]; e.PID > 0 && lifecycleEvent(e.Type) {
			last = e
			break
		}
	}
	if j.hasSnap && (last.PID == 0 || last.PID == j.snap.PID || j.snap.Taken.After(last.Time)) {
		return j.snap.PID, j.snap.Started
	}
	return last.PID, time.Time{}
}

func lifecycleEvent(t supervisor.EventType) bool {
	switch t {
	case supervisor.EventServerStarted, supervisor.EventServerAdopted, supervisor.EventRestarted,
		supervisor.EventServerDied, supervisor.EventSocketRecreated:
		return true
	}
	return false
}

// lastDeath returns the last server_died event, unless a server started or
// was adopted after it.
func (j *journalFacts) lastDeath() (supervisor.Event, bool) {
	if j == nil {
		return supervisor.Event{}, false
	}
	for i := len(j.events) - 1; i >= 0; i-- {
		switch e := j.events[i]; e.Type {
		case supervisor.EventServerDied:
			return e, true
		case supervisor.EventServerStarted, supervisor.EventServerAdopted, supervisor.EventRestarted:
			return supervisor.Event{}, false
		}
	}
	return supervisor.Event{}, false
}

// readJournal gathers what the journal knows of the server at path.
func readJournal(j Journal, path string, since time.Time) *journalFacts {
	if j == nil {
		return nil
	}
	f := &journalFacts{}
	f.events, f.err = j.Events(path, since)
	if f.err == nil {
		f.snap, f.hasSnap, f.err = j.LastSnapshot(path)
	}
	return f
}

// checkJournal is the journal's health.
func checkJournal(j Journal) Check {
	c := Check{ID: "journal", Title: "Journal"}
	if j == nil {
		c.Status, c.Summary = StatusSkipped, "skipped: no journal (tmux-mcp keeps none here, or it is off)"
		return c
	}
	c.fact("path", j.Path())
	if err := j.Check(); err != nil {
		c.Status, c.Summary = StatusFail, "the journal cannot be read as one: "+err.Error()
		c.Remedy = "tmux-mcp moves an unreadable journal aside and starts a fresh one; check the disk and the file's permissions"
		c.Commands = []string{"ls -la " + shellquote.Quote(j.Path())}
		return c
	}
	servers, err := j.Servers()
	if err != nil {
		c.Status, c.Summary = StatusWarn, "cannot list the servers in the journal: "+err.Error()
		return c
	}
	c.fact("servers", len(servers))
	c.Status, c.Summary = StatusOK, fmt.Sprintf("sound, with records of %d server(s)", len(servers))
	return c
}

// checkJournalServer reports the journal's view of one server: the last
// snapshot and the deaths in the window.
func checkJournalServer(jf *journalFacts, now time.Time, since time.Duration) Check {
	c := Check{ID: "journal.server", Title: "Journal record"}
	switch {
	case jf == nil:
		c.Status, c.Summary = StatusSkipped, "skipped: no journal"
		return c
	case jf.err != nil:
		c.Status, c.Summary = StatusWarn, "cannot read this server's records: "+jf.err.Error()
		return c
	}
	if jf.hasSnap {
		c.fact("last snapshot", jf.snap.Taken.UTC().Format(time.RFC3339))
		c.fact("last snapshot age", roundDuration(now.Sub(jf.snap.Taken)))
		c.fact("last snapshot holds", fmt.Sprintf("%d sessions, %d windows, %d panes of server PID %d",
			jf.snap.Sessions, jf.snap.Windows, jf.snap.Panes, jf.snap.PID))
	} else {
		c.fact("last snapshot", "none")
	}
	var deaths, restarts, restores int
	causes := map[string]int{}
	for _, e := range jf.events {
		switch e.Type {
		case supervisor.EventServerDied:
			deaths++
			causes[string(e.Cause)]++
		case supervisor.EventRestarted:
			restarts++
		case supervisor.EventRestored:
			restores++
		}
	}
	c.fact("deaths", deaths)
	c.fact("restarts", restarts)
	c.fact("restores", restores)
	window := "in the last " + roundDuration(since).String()
	if deaths == 0 {
		c.Status, c.Summary = StatusOK, "no death recorded "+window
		return c
	}
	var list []string
	for _, k := range sortedKeys(causes) {
		list = append(list, k+" ×"+strconv.Itoa(causes[k]))
	}
	c.Status = StatusWarn
	c.Summary = fmt.Sprintf("%d death(s) recorded %s (%s), %d restart(s), %d restore(s)", deaths, window,
		strings.Join(list, ", "), restarts, restores)
	c.Commands = []string{"tmux-mcp journal events --since " + roundDuration(since).String()}
	return c
}

// journalTimeline turns the lifecycle events of one server into timeline
// lines. Structure changes and snapshots are left out: there are many,
// and they say nothing about a death.
func journalTimeline(jf *journalFacts, socket string) []Event {
	if jf == nil {
		return nil
	}
	var out []Event
	for _, e := range jf.events {
		what := describeEvent(e)
		if what == "" {
			continue
		}
		out = append(out, Event{Time: e.Time, Socket: socket, Source: "journal", What: what})
	}
	return out
}

func describeEvent(e supervisor.Event) string {
	who := "server"
	if e.PID > 0 {
		who = "server PID " + strconv.Itoa(e.PID)
	}
	switch e.Type {
	case supervisor.EventServerDied:
		s := who + " died: " + string(e.Cause)
		if e.Detail != "" {
			s += " (" + e.Detail + ")"
		}
		return s
	case supervisor.EventRestarting:
		return fmt.Sprintf("restart attempt %d scheduled in %v", e.Attempt, e.Delay)
	case supervisor.EventRestarted:
		return "restarted: " + who + " answers"
	case supervisor.EventRestored:
		if e.Detail != "" {
			return "restore finished: " + e.Detail
		}
		return "sessions restored"
	case supervisor.EventSocketRecreated:
		return "socket recreated with SIGUSR1 for " + who
	case supervisor.EventServerAdopted:
		return who + " adopted by tmux-mcp"
	case supervisor.EventServerStarted:
		return who + " started by tmux-mcp"
	case supervisor.EventResourceWarning:
		return fmt.Sprintf("%s near its limit: %s %d of %d", who, e.Resource, e.Used, e.Limit)
	}
	return ""
}
