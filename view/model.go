package view

import (
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
)

// Overview is every supervised server as the page shows it. It carries no
// pane text: screens travel as frames.
type Overview struct {
	Servers []Server `json:"servers"`
	Jobs    []Job    `json:"jobs"`
	// Input says the page may type into panes (Options.Input).
	Input bool `json:"input"`
}

// Server is one tmux server: its supervisor health, its tree and its
// journal's recent events.
type Server struct {
	// Key names the server in frames and input: its socket path.
	Key  string `json:"key"`
	Name string `json:"name"`
	// Health is the supervisor's snapshot (server_health's result).
	Health   any       `json:"health"`
	Sessions []Session `json:"sessions"`
	Events   []Event   `json:"events"`
	// Error says why the tree could not be read (the server is down, or
	// restoring, or the read failed).
	Error string `json:"error,omitempty"`
}

// Session is a tmux session and its windows.
type Session struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Windows []Window `json:"windows"`
}

// Window is a tmux window, sized by its panes.
type Window struct {
	ID     string `json:"id"`
	Index  int    `json:"index"`
	Name   string `json:"name"`
	Active bool   `json:"active"`
	Zoomed bool   `json:"zoomed,omitempty"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Panes  []Pane `json:"panes"`
}

// Pane is a pane's place in its window and what runs in it.
type Pane struct {
	ID      string `json:"id"`
	Index   int    `json:"index"`
	Left    int    `json:"left"`
	Top     int    `json:"top"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	Active  bool   `json:"active"`
	Dead    bool   `json:"dead,omitempty"`
	Title   string `json:"title,omitempty"`
	Command string `json:"command,omitempty"`
	Agent   *Agent `json:"agent,omitempty"`
	// Job is the ID of the job running in the pane, if one does.
	Job string `json:"job,omitempty"`
}

// Agent is the agent CLI a pane runs and its state (tools' agent rules).
type Agent struct {
	Name     string `json:"name"`
	State    string `json:"state"`
	Question string `json:"question,omitempty"`
	// Return is what becomes of the agent when tmux dies (ComesBack,
	// CameBack or NotResumed; "" while the journal is off or has not
	// recorded it yet), and ReturnWhy the conversation or the reason.
	Return    string `json:"return,omitempty"`
	ReturnWhy string `json:"return_why,omitempty"`
}

// The values of Agent.Return.
const (
	ComesBack  = "comes_back"  // a restore after a tmux death resumes its conversation
	CameBack   = "came_back"   // a restore resumed it in this pane
	NotResumed = "not_resumed" // a restore would leave the pane a shell (ReturnWhy says why)
)

// Job is a background job or MCP task as the page lists it: the job's
// one record (jobrecord.Record, in its JSON: the journal's schema), with
// only what the page shows kept ([Listed]), and how long it ran.
type Job struct {
	jobrecord.Record
	// Elapsed is how long the job ran (or runs) in whole seconds, by the
	// server's clock when the overview was read: a browser's clock may be
	// another machine's.
	Elapsed float64 `json:"elapsed"`
}

// Listed is rec as the page lists it at now: its ID, server, pane,
// session, state, exit status, start and, for a task's call, the tool and
// the task's status. Nothing else of the record goes to a browser: no
// output tail, no task result, error or owner, nothing that names the
// job's end or its files.
func Listed(rec jobrecord.Record, now time.Time) Job {
	end := now
	if rec.State != jobrecord.Running && !rec.Ended.IsZero() {
		end = rec.Ended
	}
	j := Job{Record: jobrecord.Record{ID: rec.ID, Socket: rec.Socket, Pane: rec.Pane, SessionName: rec.SessionName, State: rec.State,
		ExitStatus: rec.ExitStatus, Started: rec.Started, Kind: rec.Kind},
		Elapsed: end.Sub(rec.Started).Truncate(time.Second).Seconds()}
	if rec.Call != nil {
		j.Call = &jobrecord.Call{Tool: rec.Call.Tool, Status: rec.Call.Status}
	}
	return j
}

// Event is one journal event (deaths, restarts, restores, changes).
type Event struct {
	Time   time.Time `json:"time"`
	Type   string    `json:"type"`
	Cause  string    `json:"cause,omitempty"`
	Detail string    `json:"detail,omitempty"`
}

// Screen is a pane's visible screen: one row per line, with its colours
// and attributes as SGR escape sequences (capture-pane -e), and the
// cursor.
type Screen struct {
	Rows          []string `json:"rows"`
	Width         int      `json:"width"`
	Height        int      `json:"height"`
	CursorX       int      `json:"cursor_x"`
	CursorY       int      `json:"cursor_y"`
	CursorVisible bool     `json:"cursor_visible"`
}
