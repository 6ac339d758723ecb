package journal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// RestorePlan is an ordered list of tmux commands that restores what a
// snapshot holds and the live server lacks. Steps refer to objects of the
// snapshot by their old IDs; the executor replaces them with the IDs of the
// live objects that stand for them: those in Matched, and those the steps
// create as they run.
type RestorePlan struct {
	Snapshot uint64 `json:"snapshot"` // sequence of the snapshot planned from
	// Matched maps old IDs to the live objects found for them (by the ID
	// map, the same server, or name and index).
	Matched map[string]string `json:"matched,omitempty"`
	Steps   []Step            `json:"steps"`
	// Notes say what the plan leaves out and why.
	Notes []string `json:"notes,omitempty"`
	// Agents says, per pane that ran an agent CLI, whether the plan
	// resumes its conversation.
	Agents []AgentOutcome `json:"agents,omitempty"`
}

// Step is one tmux command of a plan.
type Step struct {
	Args []Arg `json:"args"`
	// Creates names the objects of the snapshot the command makes; the
	// command prints their new IDs (-P -F createdFormat).
	Creates *Creates `json:"creates,omitempty"`
}

// Arg is one argument of a step: an old ID to replace (Ref) followed by
// literal text, or literal text alone.
type Arg struct {
	Ref  string `json:"ref,omitempty"`
	Text string `json:"text,omitempty"`
}

// Creates lists what a step creates, by old ID. Created, when set, is
// recorded again under the new pane's ID.
type Creates struct {
	Session tmux.SessionID `json:"session,omitempty"`
	Window  tmux.WindowID  `json:"window,omitempty"`
	Pane    tmux.PaneID    `json:"pane,omitempty"`
	Created *Created       `json:"-"`
}

// createdFormat is what creating steps print: the new session, window and
// pane IDs.
const createdFormat = "#{session_id} #{window_id} #{pane_id}"

// PlanOptions are the choices a plan depends on besides the two states.
type PlanOptions struct {
	// RestoreCommands re-runs every pane's command; without it only panes
	// whose Created record asks for it. A pane that ran an agent CLI gets
	// the CLI's resume of its conversation instead, or nothing.
	RestoreCommands bool
	// ResumeAgents starts each pane's agent CLI again with its resume of
	// the recorded conversation (and runs no other command).
	ResumeAgents bool
}

// Plan returns the steps that restore snap on a server whose state is live.
// ids maps old IDs of snap's server to IDs of the live server (from an
// earlier restore); when snap was taken of the live server itself, IDs are
// compared directly. It is a pure function.
//
// What exists is left alone, which makes a second run plan nothing:
// sessions are matched by ID (through ids) or by name, windows by ID or
// index within their session, panes by ID or index within their window.
// For what is missing, in order: sessions with their size and first
// window, the other windows at their index with their names, panes split
// from their predecessor with their directory (re-running their command
// only when asked), then per window that changed: pane titles, the saved
// layout (when it has a cell for every pane), the active pane and zoom;
// per session that changed: the active window.
//
// Names, titles and directories in a snapshot are untrusted: a pane's
// program sets its title and window name with escape sequences, and a
// directory may be called "#(rm -rf ~)". Steps carry them as the text
// they are; the wire (tmux, literal.go) keeps every argument
// tmux would expand as a format literal, so replaying them runs nothing.
// A name or title is replayed as the text that makes tmux store it as
// recorded: where tmux stores it escaped, unescaped, or each restore would
// double every backslash. tmux stores session names escaped on every
// version, window names given to new-window -n from 3.7
// (NewWindowNameEscaped), titles from 3.7 (TitlesEscaped).
func Plan(snap, live *Snapshot, ids map[string]string, o PlanOptions) RestorePlan {
	p := newPlanner(live, ids, snap.Server.Instance() != "" && snap.Server.Instance() == live.Server.Instance(), o)
	if v, err := tmux.ParseVersion(snap.Server.Version); err == nil {
		if v.Capabilities().TitlesEscaped {
			p.title = tmux.UnescapeStored
		}
		if v.Capabilities().NewWindowNameEscaped {
			p.winName = tmux.UnescapeStored
		}
	}
	p.plan.Snapshot = snap.Seq
	leaders := map[string]tmux.SessionID{}
	for _, s := range sortedSessions(snap.Sessions) {
		if s.Group != "" {
			if leader, ok := leaders[s.Group]; ok {
				p.groupMember(s, leader)
				continue
			}
			leaders[s.Group] = s.ID
		}
		p.session(s)
	}
	return p.plan
}

// planner carries the state of one Plan call.
type planner struct {
	o    PlanOptions
	same bool // the snapshot was taken of the live server
	// title turns a recorded title into the text select-pane -T takes,
	// winName a recorded window name into the text new-window -n takes.
	title, winName func(string) string
	ids            map[string]string
	base           int // base-index of the live server

	liveSessions map[tmux.SessionID]*Session
	liveWindows  map[tmux.WindowID]*Window
	livePanes    map[tmux.PaneID]bool
	used         map[string]bool // live IDs already matched
	plan         RestorePlan
}

func newPlanner(live *Snapshot, ids map[string]string, same bool, o PlanOptions) *planner {
	p := &planner{o: o, same: same, ids: ids, base: live.Server.BaseIndex, title: asIs, winName: asIs,
		liveSessions: map[tmux.SessionID]*Session{}, liveWindows: map[tmux.WindowID]*Window{},
		livePanes: map[tmux.PaneID]bool{}, used: map[string]bool{},
		plan: RestorePlan{Matched: map[string]string{}, Steps: []Step{}}}
	for i := range live.Sessions {
		s := &live.Sessions[i]
		p.liveSessions[s.ID] = s
		for j := range s.Windows {
			w := &s.Windows[j]
			p.liveWindows[w.ID] = w
			for _, pn := range w.Panes {
				p.livePanes[pn.ID] = true
			}
		}
	}
	return p
}

// mapped returns the live ID that old stands for, if that object exists
// and is not taken yet.
func (p *planner) mapped(old string, exists func(string) bool) string {
	id := old
	if !p.same {
		id = p.ids[old]
	}
	if id == "" || p.used[id] || !exists(id) {
		return ""
	}
	return id
}

func (p *planner) match(old, live string) {
	p.used[live] = true
	p.plan.Matched[old] = live
}

func (p *planner) step(creates *Creates, args ...Arg) {
	p.plan.Steps = append(p.plan.Steps, Step{Args: args, Creates: creates})
}

func (p *planner) note(format string, a ...any) {
	p.plan.Notes = append(p.plan.Notes, fmt.Sprintf(format, a...))
}

// session restores one session (not a follower of a group).
func (p *planner) session(s Session) {
	windows := sortedWindows(s.Windows)
	live := p.matchSession(s)
	if live == nil {
		if len(windows) == 0 || len(windows[0].Panes) == 0 {
			p.note("session %q (%s) has no panes: not restored", s.Name, s.ID)
			return
		}
		w0 := windows[0]
		p0 := sortedPanes(w0.Panes)[0]
		a := lit("new-session", "-d", "-s", tmux.UnescapeStored(s.Name))
		if s.Width > 0 && s.Height > 0 {
			a = append(a, lit("-x", strconv.Itoa(s.Width), "-y", strconv.Itoa(s.Height))...)
		}
		a = args(a, p.windowName(w0), p.paneSpawn(p0))
		p.step(&Creates{Session: s.ID, Window: w0.ID, Pane: p0.ID, Created: p0.Created}, a...)
		if w0.Index != p.base {
			p.step(nil, args(lit("move-window", "-d", "-s"), []Arg{ref(string(w0.ID), "")}, lit("-t"),
				[]Arg{ref(string(s.ID), ":"+strconv.Itoa(w0.Index))})...)
		}
		p.paneCommand(p0)
		occupied := map[int]bool{w0.Index: true}
		p.panes(w0, nil, []tmux.PaneID{p0.ID})
		for _, w := range windows[1:] {
			p.newWindow(s, w, occupied)
		}
		p.activeWindow(s)
		return
	}
	occupied := map[int]bool{}
	for _, w := range live.Windows {
		occupied[w.Index] = true
	}
	changed := false
	for _, w := range windows {
		lw := p.matchWindow(w, live)
		if lw == nil {
			p.newWindow(s, w, occupied)
			changed = true
			continue
		}
		if p.panes(w, lw, nil) {
			changed = true
		}
	}
	if changed {
		p.activeWindow(s)
	}
}

// groupMember restores a session that shares the windows of its group's
// first session.
func (p *planner) groupMember(s Session, leader tmux.SessionID) {
	if p.matchSession(s) != nil {
		return
	}
	p.step(&Creates{Session: s.ID},
		args(lit("new-session", "-d", "-s", tmux.UnescapeStored(s.Name), "-t"), []Arg{ref(string(leader), "")}, lit("-P", "-F", createdFormat))...)
}

func (p *planner) matchSession(s Session) *Session {
	if id := p.mapped(string(s.ID), func(id string) bool { return p.liveSessions[tmux.SessionID(id)] != nil }); id != "" {
		p.match(string(s.ID), id)
		return p.liveSessions[tmux.SessionID(id)]
	}
	for _, ls := range p.liveSessions {
		if ls.Name == s.Name && !p.used[string(ls.ID)] {
			p.match(string(s.ID), string(ls.ID))
			return ls
		}
	}
	return nil
}

func (p *planner) matchWindow(w Window, live *Session) *Window {
	if id := p.mapped(string(w.ID), func(id string) bool { return p.liveWindows[tmux.WindowID(id)] != nil }); id != "" {
		p.match(string(w.ID), id)
		return p.liveWindows[tmux.WindowID(id)]
	}
	for i := range live.Windows {
		lw := &live.Windows[i]
		if lw.Index == w.Index && !p.used[string(lw.ID)] {
			p.match(string(w.ID), string(lw.ID))
			return p.liveWindows[lw.ID]
		}
	}
	return nil
}

// newWindow creates window w of session s with its first pane, then the
// rest of its panes.
func (p *planner) newWindow(s Session, w Window, occupied map[int]bool) {
	panes := sortedPanes(w.Panes)
	if len(panes) == 0 {
		p.note("window %q (%s) has no panes: not restored", w.Name, w.ID)
		return
	}
	target := ref(string(s.ID), ":")
	if !occupied[w.Index] {
		target.Text += strconv.Itoa(w.Index)
		occupied[w.Index] = true
	} else {
		p.note("window %q (%s): index %d is taken, placed at the next free index", w.Name, w.ID, w.Index)
	}
	p0 := panes[0]
	p.step(&Creates{Window: w.ID, Pane: p0.ID, Created: p0.Created},
		args(lit("new-window", "-d", "-t"), []Arg{target}, p.windowName(w), p.paneSpawn(p0))...)
	p.paneCommand(p0)
	p.panes(w, nil, []tmux.PaneID{p0.ID})
}

// windowName names a window unless tmux names it automatically.
func (p *planner) windowName(w Window) []Arg {
	if w.AutomaticRename {
		return nil
	}
	return lit("-n", p.winName(w.Name))
}

// panes restores the panes of window w that are missing. live is the live
// window matched for it (nil for a window just created); created lists
// panes the plan made already. It reports whether the window changed.
func (p *planner) panes(w Window, live *Window, created []tmux.PaneID) bool {
	panes := sortedPanes(w.Panes)
	livePanes := map[int]tmux.PaneID{}
	count := 0
	if live != nil {
		count = len(live.Panes)
		for _, lp := range live.Panes {
			livePanes[lp.Index] = lp.ID
		}
	}
	count += len(created)
	made := slices.Clone(created)
	var prev tmux.PaneID
	for _, pn := range panes {
		if slices.Contains(created, pn.ID) {
			prev = pn.ID
			continue
		}
		if live != nil {
			if id := p.mapped(string(pn.ID), func(id string) bool { return p.livePanes[tmux.PaneID(id)] }); id != "" {
				p.match(string(pn.ID), id)
				prev = pn.ID
				continue
			}
			if id, ok := livePanes[pn.Index]; ok && !p.used[string(id)] {
				p.match(string(pn.ID), string(id))
				prev = pn.ID
				continue
			}
		}
		target := ref(string(w.ID), "")
		if prev != "" {
			target = ref(string(prev), "")
		}
		p.step(&Creates{Pane: pn.ID, Created: pn.Created},
			args(lit("split-window", "-d", "-t"), []Arg{target}, p.paneSpawn(pn))...)
		count++
		if len(panes) > 2 {
			// Keep room for the next split: halving one pane again and
			// again soon leaves none.
			p.step(nil, args(lit("select-layout", "-t"), []Arg{ref(string(w.ID), "")}, lit("tiled"))...)
		}
		p.paneCommand(pn)
		made = append(made, pn.ID)
		prev = pn.ID
	}
	if len(made) == 0 {
		return false
	}
	for _, pn := range panes {
		if slices.Contains(made, pn.ID) && pn.Title != "" {
			p.step(nil, args(lit("select-pane", "-t"), []Arg{ref(string(pn.ID), "")}, lit("-T", p.title(pn.Title)))...)
		}
	}
	if cells := layoutCells(w.Layout); w.Layout != "" && cells >= count {
		p.step(nil, args(lit("select-layout", "-t"), []Arg{ref(string(w.ID), "")}, lit(w.Layout))...)
	} else if w.Layout != "" {
		p.note("window %q (%s): layout not applied: %d panes, %d cells", w.Name, w.ID, count, cells)
	}
	for _, pn := range panes {
		if pn.Active {
			p.step(nil, args(lit("select-pane", "-t"), []Arg{ref(string(pn.ID), "")})...)
			if w.Zoomed {
				p.step(nil, args(lit("resize-pane", "-Z", "-t"), []Arg{ref(string(pn.ID), "")})...)
			}
		}
	}
	return true
}

func (p *planner) activeWindow(s Session) {
	for _, w := range s.Windows {
		if w.Active {
			p.step(nil, args(lit("select-window", "-t"), []Arg{ref(string(w.ID), "")})...)
		}
	}
}

// paneSpawn is the part of a creating command that sets up its pane: the
// directory, the environment tmux-mcp gave it, the IDs to print, and the
// command to run when it is re-run at spawn.
func (p *planner) paneSpawn(pn Pane) []Arg {
	a := lit("-P", "-F", createdFormat)
	if dir, ok := p.agentDir(pn); ok {
		a = append(a, lit("-c", dir)...)
	} else if dir := paneDir(pn); dir != "" {
		a = append(a, lit("-c", dir)...)
	}
	if pn.Created != nil {
		for _, kv := range pn.Created.Env {
			// A name without its value (Options.EnvNamesOnly) is not
			// restored: tmux would ignore it anyway.
			if strings.Contains(kv, "=") {
				a = append(a, lit("-e", kv)...)
			}
		}
	}
	if argv, _ := p.command(pn); len(argv) > 0 {
		a = append(a, lit("--")...)
		a = append(a, lit(argv...)...)
	}
	return a
}

// paneCommand types the foreground command of a shell pane into the
// restored shell, when commands are re-run and the pane's own command was
// the shell.
func (p *planner) paneCommand(pn Pane) {
	if pn.Agent != nil && !pn.Dead {
		p.agentOutcome(pn)
	}
	_, typed := p.command(pn)
	if typed == "" {
		return
	}
	p.step(nil, args(lit("send-keys", "-t"), []Arg{ref(string(pn.ID), "")}, lit("-l", "--", typed))...)
	p.step(nil, args(lit("send-keys", "-t"), []Arg{ref(string(pn.ID), "")}, lit("Enter"))...)
}

// command returns how pn's program is re-run, if it is: an argv to spawn
// the pane with, or a command line to type into its shell.
func (p *planner) command(pn Pane) (argv []string, typed string) {
	if pn.Dead {
		return nil, ""
	}
	if pn.Agent != nil {
		return p.agentCommand(pn)
	}
	if !(p.o.RestoreCommands || pn.Created != nil && pn.Created.Restore) {
		return nil, ""
	}
	switch {
	case pn.Created != nil && len(pn.Created.Argv) > 0:
		return pn.Created.Argv, ""
	case pn.StartCommand != "":
		if argv, err := tmux.SplitStartCommand(pn.StartCommand); err == nil && len(argv) > 0 {
			return argv, ""
		}
	case pn.InShell && len(pn.Argv) > 0:
		return nil, shellquote.Join(pn.Argv)
	}
	return nil, ""
}
