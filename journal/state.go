package journal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// tmuxServer is the part of a supervised server the journal uses to read
// and restore its state. *supervisor.Server implements it.
type tmuxServer interface {
	ServerRecord(ctx context.Context, fields ...string) ([]string, error)
	PaneRecords(ctx context.Context, fields ...string) ([][]string, error)
	// Replay sends one step of a restore plan.
	Replay(ctx context.Context, argv []string) ([]byte, error)
	Socket() tmux.Socket
}

// serverFields are read once per snapshot with display-message: it answers
// even when the server has no session (list-panes -a then fails). "S:x"
// prints an x per session.
var serverFields = []string{"pid", "start_time", "version", "socket_path", "base-index", "S:x"}

// paneFields are read with one list-panes -a call.
var paneFields = []string{
	"session_id", "session_name", "session_created", "session_group",
	"window_id", "window_index", "window_name", "window_active", "window_zoomed_flag", "window_layout",
	"window_visible_layout", "window_width", "window_height", "automatic-rename",
	"pane_id", "pane_index", "pane_active", "pane_title", "pane_start_command", "pane_start_path",
	"pane_current_command", "pane_pid", "pane_dead", "pane_dead_status", "pane_dead_signal",
	"pane_width", "pane_height", "history_size",
	"pane_current_path",
}

// Both are read as tmux.RecordFormat records: names, titles and paths are
// untrusted bytes, and the record codec cannot be split or forged by them.

// readState reads the session tree of srv: one display-message for the
// server and one list-panes -a for everything else, plus /proc for the
// argv of each pane's foreground process, the agent CLI in each pane's
// process tree and its conversation (readAgent), and the server's binary.
func readState(ctx context.Context, srv tmuxServer) (*Snapshot, error) {
	f, err := srv.ServerRecord(ctx, serverFields...)
	if err != nil {
		return nil, fmt.Errorf("journal: read server: %w", err)
	}
	snap := &Snapshot{Taken: time.Now().UTC(), Sessions: []Session{}}
	snap.Server.PID, _ = strconv.Atoi(f[0])
	snap.Server.StartTime, _ = strconv.ParseInt(f[1], 10, 64)
	snap.Server.Version, snap.Server.Socket = f[2], f[3]
	snap.Server.BaseIndex, _ = strconv.Atoi(f[4])
	if snap.Server.PID > 0 {
		snap.Server.Binary, _ = os.Readlink("/proc/" + f[0] + "/exe")
	}
	if f[5] == "" {
		snap.noSession = true
		return snap, nil
	}
	recs, err := srv.PaneRecords(ctx, paneFields...)
	if err != nil {
		return nil, fmt.Errorf("journal: list panes: %w", err)
	}
	parsePanes(snap, recs)
	for i := range snap.Sessions {
		for j := range snap.Sessions[i].Windows {
			for k := range snap.Sessions[i].Windows[j].Panes {
				p := &snap.Sessions[i].Windows[j].Panes[k]
				p.Argv, p.InShell = foreground(p.PID)
				if !p.Dead {
					p.Agent = readAgent(ctx, p.PID)
				}
				p.forking = runsBinary(p.PID, snap.Server.Binary) || readAcrossExec(p, snap.Server.Binary)
			}
		}
	}
	return snap, nil
}

// parsePanes builds the tree from list-panes records. Rows come sorted by
// session name, window index and pane index; sessions are sorted by ID
// here. The hidden session is left out.
func parsePanes(snap *Snapshot, recs [][]string) {
	sessions := map[tmux.SessionID]*Session{}
	var order []tmux.SessionID
	for _, v := range recs {
		if v[1] == tmux.HiddenSession {
			continue
		}
		n := func(i int) int { x, _ := strconv.Atoi(v[i]); return x }
		sid := tmux.SessionID(v[0])
		s := sessions[sid]
		if s == nil {
			created, _ := strconv.ParseInt(v[2], 10, 64)
			s = &Session{ID: sid, Name: v[1], Created: created, Group: v[3]}
			sessions[sid] = s
			order = append(order, sid)
		}
		wid := tmux.WindowID(v[4])
		wi := slices.IndexFunc(s.Windows, func(w Window) bool { return w.ID == wid })
		if wi < 0 {
			s.Windows = append(s.Windows, Window{ID: wid, Index: n(5), Name: v[6], Active: v[7] == "1", Zoomed: v[8] == "1",
				Layout: v[9], VisibleLayout: v[10], Width: n(11), Height: n(12), AutomaticRename: v[13] == "1"})
			wi = len(s.Windows) - 1
			s.Width, s.Height = max(s.Width, n(11)), max(s.Height, n(12))
		}
		s.Windows[wi].Panes = append(s.Windows[wi].Panes, Pane{
			ID: tmux.PaneID(v[14]), Index: n(15), Active: v[16] == "1", Title: v[17], StartCommand: v[18],
			StartPath: v[19], Command: v[20], PID: n(21), Dead: v[22] == "1", DeadStatus: n(23), DeadSignal: n(24),
			Width: n(25), Height: n(26), HistorySize: n(27), Path: v[28],
		})
	}
	for _, id := range order {
		snap.Sessions = append(snap.Sessions, *sessions[id])
	}
	snap.Sessions = sortedSessions(snap.Sessions)
}

// foreground returns the argv of the process in the foreground of the
// terminal of the pane whose process is pid, and whether that is another
// process than the pane's own (a command started from its shell). It
// reads /proc and returns nothing where /proc cannot tell.
func foreground(pid int) ([]string, bool) {
	if pid <= 0 {
		return nil, false
	}
	fg := pid
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// Field 8 (tpgid) is the terminal's foreground process group; its
		// leader's PID is the group ID. Fields start after the command
		// name, which is in parentheses and may contain anything.
		if i := bytes.LastIndexByte(b, ')'); i > 0 {
			f := strings.Fields(string(b[i+1:]))
			if len(f) > 5 {
				if tp, err := strconv.Atoi(f[5]); err == nil && tp > 0 {
					fg = tp
				}
			}
		}
	}
	argv := cmdline(fg)
	if argv == nil && fg != pid {
		return cmdline(pid), false
	}
	return argv, fg != pid
}

// runsBinary reports whether process pid runs the executable bin (as
// /proc names it). Where /proc cannot tell, it reports false.
func runsBinary(pid int, bin string) bool {
	if pid <= 0 || bin == "" {
		return false
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	return err == nil && exe == bin
}

// readAcrossExec reports whether tmux named pane p's command while its
// process was still tmux's fork (the server binary's name), though by the
// time /proc was read it runs another binary: the two readings came from
// either side of the exec (make ci once: command "tmux", argv [sleep
// 1234]). A pane that runs a tmux client is not taken for one: its
// binary has the name too.
func readAcrossExec(p *Pane, bin string) bool {
	if p.PID <= 0 || bin == "" || p.Command != filepath.Base(bin) {
		return false
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(p.PID) + "/exe")
	return err == nil && filepath.Base(exe) != filepath.Base(bin)
}

func cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}
