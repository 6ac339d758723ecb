package guard

import (
	"context"
	"os"
	"slices"
	"sync"

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

// OwnPanes remembers, per server, the pane this process runs in.
type OwnPanes struct {
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

// NewOwnPanes returns an empty memory; selfPIDs stands in for the
// process ancestry when not nil (tests).
func NewOwnPanes(selfPIDs func() []int) *OwnPanes {
	if selfPIDs == nil {
		selfPIDs = ancestry
	}
	return &OwnPanes{selfPIDs: selfPIDs, bySocket: map[string]ownPane{}}
}

// Ancestors returns this process and its ancestors, read once: call it
// early, before a parent may exit and take the trail with it.
func (o *OwnPanes) Ancestors() map[int]bool {
	o.once.Do(func() {
		o.pids = map[int]bool{}
		o.list = o.selfPIDs()
		for _, pid := range o.list {
			o.pids[pid] = true
		}
	})
	return o.pids
}

// ancestorList is Ancestors as a list, nearest first.
func (o *OwnPanes) ancestorList() []int {
	o.Ancestors()
	return slices.Clone(o.list)
}

func (o *OwnPanes) cached(sock tmux.Socket, serverPID int) (ownPane, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c, ok := o.bySocket[sock.ResolvedPath()]
	return c, ok && serverPID != 0 && c.serverPID == serverPID
}

func (o *OwnPanes) remember(sock tmux.Socket, c ownPane) {
	if c.serverPID == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.bySocket[sock.ResolvedPath()] = c
}

// known returns what was learnt of sock's server, whichever its PID.
func (o *OwnPanes) known(sock tmux.Socket) (ownPane, bool) {
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
func (g Guard) findOwn(panes []tmux.Pane, sock tmux.Socket) tmux.PaneID {
	if g.Own != nil {
		pids := g.Own.Ancestors()
		for _, p := range panes {
			// A dead pane's PID may since belong to another process.
			if !p.Dead && p.PID > 0 && pids[p.PID] {
				return p.ID
			}
		}
	}
	if g.Caller.Pane != "" && g.CallerOnServer(sock) {
		for _, p := range panes {
			if p.ID == g.Caller.Pane {
				return p.ID
			}
		}
	}
	return ""
}

// OwnPaneOn returns the pane this process runs in on srv's server ("" if
// none), and the rows of that pane in a fresh listing (one per session
// its window is linked into) when it reads one. It asks tmux only when it
// has not yet looked at this server, or when the caller's pane is there
// and rows is true.
func (g Guard) OwnPaneOn(ctx context.Context, srv *supervisor.Server, rows bool) (tmux.PaneID, []tmux.Pane, error) {
	if g.Own == nil {
		return g.envPaneOn(ctx, srv, rows)
	}
	c, ok := g.Own.cached(srv.Socket(), srv.Health().PID)
	if ok && (c.pane == "" || !rows) {
		return c.pane, nil, nil
	}
	panes, err := srv.ListPanesWith(ctx, ownPaneFields...)
	if err != nil {
		return "", nil, err
	}
	id := c.pane
	if !ok {
		id = g.findOwn(panes, srv.Socket())
		g.Own.remember(srv.Socket(), ownPane{serverPID: srv.Health().PID, pane: id})
	}
	return id, rowsOf(panes, id), nil
}

// Owned is the caller's panes on one server: the pane this process runs
// in and, for a call routed here from a tmux-mcp of this machine, the
// panes its callers run in (hopcaller.go).
type Owned struct {
	Panes []tmux.PaneID
	// Rows are their rows in a fresh listing (one per session a pane's
	// window is linked into), when asked for.
	Rows []tmux.Pane
}

// Has reports whether id is one of the caller's panes.
func (o Owned) Has(id tmux.PaneID) bool { return id != "" && slices.Contains(o.Panes, id) }

// OwnPanesOn returns the caller's panes on srv's server: this process's
// own (OwnPaneOn, cached), and the panes of the callers of a call routed
// here from this machine, looked up afresh (one listing) for each call
// that carries them. A descriptor adds panes, never takes this process's
// own away.
func (g Guard) OwnPanesOn(ctx context.Context, srv *supervisor.Server, rows bool) (Owned, error) {
	id, ownRows, err := g.OwnPaneOn(ctx, srv, rows)
	if err != nil {
		return Owned{}, err
	}
	var o Owned
	if id != "" {
		o.Panes, o.Rows = []tmux.PaneID{id}, ownRows
	}
	hop := HopCallersOf(ctx)
	if !hop.Here() {
		return o, nil
	}
	panes, err := srv.ListPanesWith(ctx, ownPaneFields...)
	if err != nil {
		return Owned{}, err
	}
	for _, p := range hop.find(panes, srv.Socket()) {
		if !o.Has(p) {
			o.Panes = append(o.Panes, p)
			o.Rows = append(o.Rows, rowsOf(panes, p)...)
		}
	}
	return o, nil
}

// envPaneOn is OwnPaneOn without a cache (Own nil: tools' Deps not built
// by Catalog): the environment's pane only.
func (g Guard) envPaneOn(ctx context.Context, srv *supervisor.Server, rows bool) (tmux.PaneID, []tmux.Pane, error) {
	if g.Caller.Pane == "" || !g.CallerOnServer(srv.Socket()) {
		return "", nil, nil
	}
	panes, err := srv.ListPanesWith(ctx, ownPaneFields...)
	if err != nil {
		return "", nil, err
	}
	id := g.findOwn(panes, srv.Socket())
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
