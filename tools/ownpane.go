package tools

import (
	"context"
	"os"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/shirou/gopsutil/v3/process"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The pane tmux-mcp runs in (and so the agent that started it): on each
// server, the pane whose process (pane_pid) is tmux-mcp or one of its
// ancestors; else, when the client passed its environment, the pane
// TMUX_PANE names on the server TMUX names. The ancestry comes first:
// some clients (Codex, Cursor) start MCP servers without the caller's
// environment, and a PID match against our own ancestry cannot be forged
// by anything a pane prints or sets. pane_pid is read back from tmux, but
// only compared.
//
// A pane that holds tmux-mcp existed before tmux-mcp started, so each
// server is looked at once (on first need: servers may start later), and
// the answer holds until that server's PID changes.

// maxAncestry bounds the walk up the process tree.
const maxAncestry = 64

// ancestry returns the PIDs of this process and of its ancestors, nearest
// first, init excluded. gopsutil reads parents on Linux and macOS alike.
func ancestry() []int {
	out := []int{os.Getpid()}
	pid := int32(os.Getppid())
	for len(out) < maxAncestry && pid > 1 {
		out = append(out, int(pid))
		p, err := process.NewProcess(pid)
		if err != nil {
			break
		}
		ppid, err := p.Ppid()
		if err != nil || ppid == pid {
			break
		}
		pid = ppid
	}
	return out
}

// ownPanes remembers, per server, the pane this process runs in.
type ownPanes struct {
	// selfPIDs returns this process and its ancestors (ancestry when nil).
	selfPIDs func() []int
	once     sync.Once
	pids     map[int]bool
	list     []int // pids, nearest first

	mu       sync.Mutex
	bySocket map[string]ownPane // by the socket's resolved path
}

// ownPane is what one server holds of this process.
type ownPane struct {
	serverPID int
	pane      tmux.PaneID // "" when no pane there holds tmux-mcp
}

func newOwnPanes(selfPIDs func() []int) *ownPanes {
	if selfPIDs == nil {
		selfPIDs = ancestry
	}
	return &ownPanes{selfPIDs: selfPIDs, bySocket: map[string]ownPane{}}
}

func (o *ownPanes) ancestors() map[int]bool {
	o.once.Do(func() {
		o.pids = map[int]bool{}
		o.list = o.selfPIDs()
		for _, pid := range o.list {
			o.pids[pid] = true
		}
	})
	return o.pids
}

// ancestorList is ancestors as a list, nearest first.
func (o *ownPanes) ancestorList() []int {
	o.ancestors()
	return slices.Clone(o.list)
}

func (o *ownPanes) cached(sock tmux.Socket, serverPID int) (ownPane, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c, ok := o.bySocket[sock.ResolvedPath()]
	return c, ok && serverPID != 0 && c.serverPID == serverPID
}

func (o *ownPanes) remember(sock tmux.Socket, c ownPane) {
	if c.serverPID == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.bySocket[sock.ResolvedPath()] = c
}

// known returns what was learnt of sock's server, whichever its PID.
func (o *ownPanes) known(sock tmux.Socket) (ownPane, bool) {
	if o == nil {
		return ownPane{}, false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	c, ok := o.bySocket[sock.ResolvedPath()]
	return c, ok
}

// ownPaneFields are what finding the caller reads of each pane.
var ownPaneFields = []string{"pane_pid", "pane_dead", "window_id"}

// findOwn picks the caller's pane among panes of the server on sock.
func (d Deps) findOwn(panes []tmux.Pane, sock tmux.Socket) tmux.PaneID {
	if d.own != nil {
		pids := d.own.ancestors()
		for _, p := range panes {
			// A dead pane's PID may since belong to another process.
			if !p.Dead && p.PID > 0 && pids[p.PID] {
				return p.ID
			}
		}
	}
	if d.Caller.Pane != "" && d.callerOnServer(sock) {
		for _, p := range panes {
			if p.ID == d.Caller.Pane {
				return p.ID
			}
		}
	}
	return ""
}

// ownPaneOn returns the pane this process runs in on srv's server ("" if
// none), and the rows of that pane in a fresh listing (one per session
// its window is linked into) when it reads one. It asks tmux only when it
// has not yet looked at this server, or when the caller's pane is there
// and rows is true.
func (d Deps) ownPaneOn(ctx context.Context, srv *supervisor.Server, rows bool) (tmux.PaneID, []tmux.Pane, error) {
	if d.own == nil {
		return d.envPaneOn(ctx, srv, rows)
	}
	c, ok := d.own.cached(srv.Socket(), srv.Health().PID)
	if ok && (c.pane == "" || !rows) {
		return c.pane, nil, nil
	}
	panes, err := srv.ListPanesWith(ctx, ownPaneFields...)
	if err != nil {
		return "", nil, err
	}
	id := c.pane
	if !ok {
		id = d.findOwn(panes, srv.Socket())
		d.own.remember(srv.Socket(), ownPane{serverPID: srv.Health().PID, pane: id})
	}
	return id, rowsOf(panes, id), nil
}

// owned is the caller's panes on one server: the pane this process runs
// in and, for a call routed here from a tmux-mcp of this machine, the
// panes its callers run in (hopcaller.go).
type owned struct {
	panes []tmux.PaneID
	// rows are their rows in a fresh listing (one per session a pane's
	// window is linked into), when asked for.
	rows []tmux.Pane
}

func (o owned) has(id tmux.PaneID) bool { return id != "" && slices.Contains(o.panes, id) }

// ownPanesOn returns the caller's panes on srv's server: this process's
// own (ownPaneOn, cached), and the panes of the callers of a call routed
// here from this machine, looked up afresh (one listing) for each call
// that carries them. A descriptor adds panes, never takes this process's
// own away.
func (d Deps) ownPanesOn(ctx context.Context, srv *supervisor.Server, rows bool) (owned, error) {
	id, ownRows, err := d.ownPaneOn(ctx, srv, rows)
	if err != nil {
		return owned{}, err
	}
	var o owned
	if id != "" {
		o.panes, o.rows = []tmux.PaneID{id}, ownRows
	}
	hop := hopCallersOf(ctx)
	if !hop.here() {
		return o, nil
	}
	panes, err := srv.ListPanesWith(ctx, ownPaneFields...)
	if err != nil {
		return owned{}, err
	}
	for _, p := range hop.find(panes, srv.Socket()) {
		if !o.has(p) {
			o.panes = append(o.panes, p)
			o.rows = append(o.rows, rowsOf(panes, p)...)
		}
	}
	return o, nil
}

// envPaneOn is ownPaneOn without a cache (Deps not built by Catalog): the
// environment's pane only.
func (d Deps) envPaneOn(ctx context.Context, srv *supervisor.Server, rows bool) (tmux.PaneID, []tmux.Pane, error) {
	if d.Caller.Pane == "" || !d.callerOnServer(srv.Socket()) {
		return "", nil, nil
	}
	panes, err := srv.ListPanesWith(ctx, ownPaneFields...)
	if err != nil {
		return "", nil, err
	}
	id := d.findOwn(panes, srv.Socket())
	return id, rowsOf(panes, id), nil
}

func rowsOf(panes []tmux.Pane, id tmux.PaneID) []tmux.Pane {
	var out []tmux.Pane
	for _, p := range panes {
		if id != "" && p.ID == id {
			out = append(out, p)
		}
	}
	return out
}

// callerMarks says which pane, windows and sessions of one server hold
// tmux-mcp. inTmux false means tmux-mcp found no sign of running in tmux
// (neither TMUX in its environment nor a pane of this server): is_caller
// is then null.
type callerMarks struct {
	inTmux   bool
	panes    []tmux.PaneID
	windows  map[tmux.WindowID]bool
	sessions map[tmux.SessionID]bool
	rows     []tmux.Pane
}

// paneIn returns the caller's pane that a window or session holds.
func (m callerMarks) paneIn(window tmux.WindowID, session tmux.SessionID) tmux.PaneID {
	for _, r := range m.rows {
		if window != "" && r.WindowID == window || session != "" && r.SessionID == session {
			return r.ID
		}
	}
	return ""
}

// marks finds the caller on srv's server: its panes (ownPanesOn), and the
// windows and sessions that hold them now.
func (d Deps) marks(ctx context.Context, srv *supervisor.Server) (callerMarks, error) {
	own, err := d.ownPanesOn(ctx, srv, true)
	if err != nil {
		return callerMarks{}, err
	}
	m := callerMarks{inTmux: len(own.panes) > 0 || d.Caller.InTmux() || hopCallersOf(ctx).here(), panes: own.panes,
		windows: map[tmux.WindowID]bool{}, sessions: map[tmux.SessionID]bool{}, rows: own.rows}
	for _, r := range own.rows {
		m.windows[r.WindowID] = true
		m.sessions[r.SessionID] = true
	}
	return m, nil
}

func (m callerMarks) mark(b bool) *bool {
	if !m.inTmux {
		return nil
	}
	return &b
}

func (m callerMarks) isPane(id tmux.PaneID) *bool {
	return m.mark(id != "" && slices.Contains(m.panes, id))
}
func (m callerMarks) isWindow(id tmux.WindowID) *bool   { return m.mark(m.windows[id]) }
func (m callerMarks) isSession(id tmux.SessionID) *bool { return m.mark(m.sessions[id]) }

// learnOwn makes sure srv's server has been looked at, so that isCaller
// answers for its panes.
func (d Deps) learnOwn(ctx context.Context, srv *supervisor.Server) error {
	_, _, err := d.ownPaneOn(ctx, srv, false)
	return err
}

// sessionResult is s as a tool result, is_caller marked.
func (d Deps) sessionResult(ctx context.Context, srv *supervisor.Server, s tmux.Session) (*mcp.CallToolResult, error) {
	m, err := d.marks(ctx, srv)
	if err != nil {
		return nil, err
	}
	info := sessionInfo(s)
	info.IsCaller = m.isSession(s.ID)
	return structured(info)
}

// windowResult is w as a tool result, is_caller marked.
func (d Deps) windowResult(ctx context.Context, srv *supervisor.Server, w tmux.Window) (*mcp.CallToolResult, error) {
	m, err := d.marks(ctx, srv)
	if err != nil {
		return nil, err
	}
	info := windowInfo(w)
	info.IsCaller = m.isWindow(w.ID)
	return structured(info)
}

// paneOut is x as a tool result, is_caller marked.
func (d Deps) paneOut(ctx context.Context, srv *supervisor.Server, x tmux.Pane) (*mcp.CallToolResult, error) {
	if err := d.learnOwn(ctx, srv); err != nil {
		return nil, err
	}
	info := []PaneInfo{d.paneInfo(x, srv.Socket())}
	if err := d.withAgents(ctx, srv, []tmux.Pane{x}, info); err != nil {
		return nil, err
	}
	if err := d.markCallers(ctx, srv, info); err != nil {
		return nil, err
	}
	return structured(info[0])
}
