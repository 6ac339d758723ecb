package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Snapshot is the session tree of one tmux server at one moment: what a
// restore needs to restore it. Sessions are ordered by ID, windows by
// index, panes by index. The hidden session of the command connection is
// never part of it.
type Snapshot struct {
	Seq      uint64    `json:"seq,omitempty"` // assigned when stored
	Taken    time.Time `json:"taken"`
	Digest   string    `json:"digest,omitempty"` // of the content that matters for a restore; see digest
	Server   Server    `json:"server"`
	Sessions []Session `json:"sessions"`

	// noSession is set by readState when the server had no session at all,
	// not even the hidden one the command connection holds while the server
	// lives: the server is on its way out (see takeSnapshot).
	noSession bool
}

// Server identifies the tmux server a snapshot was taken of.
type Server struct {
	PID       int    `json:"pid"`
	StartTime int64  `json:"start_time"` // unix seconds
	Version   string `json:"version"`
	Socket    string `json:"socket"`           // socket path
	Binary    string `json:"binary,omitempty"` // the server's executable, from /proc/<pid>/exe
	BaseIndex int    `json:"base_index"`       // the base-index new sessions get
}

// Instance names one run of a server: IDs ($, @, %) are unique within an
// instance only.
func (s Server) Instance() string {
	if s.PID == 0 {
		return ""
	}
	return strconv.Itoa(s.PID) + "." + strconv.FormatInt(s.StartTime, 10)
}

// Session is one session of a snapshot.
type Session struct {
	ID      tmux.SessionID `json:"id"`
	Name    string         `json:"name"`
	Created int64          `json:"created"`         // unix seconds
	Group   string         `json:"group,omitempty"` // session group, if grouped
	Width   int            `json:"width"`           // of its largest window
	Height  int            `json:"height"`
	Windows []Window       `json:"windows"`
}

// Window is one window of a snapshot.
type Window struct {
	ID              tmux.WindowID `json:"id"`
	Index           int           `json:"index"`
	Name            string        `json:"name"`
	Layout          string        `json:"layout"`                   // unzoomed
	VisibleLayout   string        `json:"visible_layout,omitempty"` // as shown (zoomed)
	Active          bool          `json:"active,omitempty"`
	Zoomed          bool          `json:"zoomed,omitempty"`
	AutomaticRename bool          `json:"automatic_rename,omitempty"`
	Width           int           `json:"width"`
	Height          int           `json:"height"`
	Panes           []Pane        `json:"panes"`
}

// Pane is one pane of a snapshot.
type Pane struct {
	ID           tmux.PaneID `json:"id"`
	Index        int         `json:"index"`
	Title        string      `json:"title,omitempty"`
	Path         string      `json:"path,omitempty"`          // current working directory
	StartPath    string      `json:"start_path,omitempty"`    // directory it was started in
	StartCommand string      `json:"start_command,omitempty"` // as tmux quotes it; empty for the default shell
	Command      string      `json:"command,omitempty"`       // name of the foreground process
	Argv         []string    `json:"argv,omitempty"`          // full argv of the foreground process (/proc)
	InShell      bool        `json:"in_shell,omitempty"`      // the foreground process is not the pane's own: it was started from its shell
	PID          int         `json:"pid,omitempty"`
	Active       bool        `json:"active,omitempty"`
	Dead         bool        `json:"dead,omitempty"`
	DeadStatus   int         `json:"dead_status,omitempty"`
	DeadSignal   int         `json:"dead_signal,omitempty"`
	Width        int         `json:"width"`
	Height       int         `json:"height"`
	HistorySize  int         `json:"history_size,omitempty"`
	// Created is what tmux-mcp used to create the pane, when it did.
	Created *Created `json:"created,omitempty"`
	// Agent is the agent CLI that ran in the pane, if one did.
	Agent *Agent `json:"agent,omitempty"`
	// forking: when read, the pane's process still ran the server's binary
	// (tmux had forked it and not yet exec'd the command). Not stored.
	forking bool
}

// Created is how tmux-mcp created a pane: the exact argv, working
// directory and environment, and whether a restore re-runs the command.
type Created struct {
	Argv    []string  `json:"argv,omitempty"`
	Cwd     string    `json:"cwd,omitempty"`
	Env     []string  `json:"env,omitempty"` // KEY=VALUE, or KEY alone (Options.EnvNamesOnly)
	Restore bool      `json:"restore,omitempty"`
	At      time.Time `json:"at"`
	// ServerPID is the server the pane ID belongs to (0: not known).
	ServerPID int `json:"server_pid,omitempty"`
}

// started returns the live panes of s whose process had started when s
// was read: tmux could read a directory for it, and it no longer runs the
// server's binary. Between tmux's fork and the exec of the pane's
// command, the child runs the server's binary and its directory is the
// server's until it changes to the pane's own: a path read then is not
// the pane's.
func (s *Snapshot) started() map[tmux.PaneID]bool {
	out := map[tmux.PaneID]bool{}
	for _, sess := range s.Sessions {
		for _, w := range sess.Windows {
			for _, p := range w.Panes {
				if !p.Dead && p.Path != "" && !p.forking {
					out[p.ID] = true
				}
			}
		}
	}
	return out
}

// settledAfter reports whether every live pane of s had already started
// in an earlier read of the same server (before: its started panes). A
// pane seen starting in this read may have had its path read before its
// process changed directory (list-panes comes before the /proc read that
// shows the exec), so only a later read's path is trusted.
func (s *Snapshot) settledAfter(before map[tmux.PaneID]bool) bool {
	for _, sess := range s.Sessions {
		for _, w := range sess.Windows {
			for _, p := range w.Panes {
				if !p.Dead && !before[p.ID] {
					return false
				}
			}
		}
	}
	return true
}

// dropCommandLines forgets every pane's command line (Options.
// CommandNamesOnly): the foreground process's argv and the start command.
// Command, the foreground process's name, stays.
func (s *Snapshot) dropCommandLines() {
	for i := range s.Sessions {
		for j := range s.Sessions[i].Windows {
			for k := range s.Sessions[i].Windows[j].Panes {
				p := &s.Sessions[i].Windows[j].Panes[k]
				p.Argv, p.StartCommand = nil, ""
			}
		}
	}
}

// Counts returns the number of sessions, windows and panes.
func (s *Snapshot) Counts() (sessions, windows, panes int) {
	for _, sess := range s.Sessions {
		sessions++
		for _, w := range sess.Windows {
			windows++
			panes += len(w.Panes)
		}
	}
	return sessions, windows, panes
}

// digest hashes what a restore would use: everything but the sequence, the
// time taken and the history sizes, which change all the time and are not
// restored.
func (s *Snapshot) digest() string {
	c := *s
	c.Seq, c.Taken, c.Digest = 0, time.Time{}, ""
	c.Sessions = make([]Session, len(s.Sessions))
	for i, sess := range s.Sessions {
		sess.Windows = append([]Window(nil), sess.Windows...)
		for j, w := range sess.Windows {
			w.Panes = append([]Pane(nil), w.Panes...)
			for k := range w.Panes {
				w.Panes[k].HistorySize = 0
			}
			sess.Windows[j] = w
		}
		c.Sessions[i] = sess
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "" // cannot happen: the types marshal
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}
