package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/hosts"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The caller through the hops (hosts/caller.go). A call routed here from
// a tmux-mcp on this same machine (a --host that is this machine) carries
// that tmux-mcp's process ancestry and TMUX/TMUX_PANE, and those of every
// tmux-mcp before it: the panes they find on a server are the caller's
// own panes too, for this call (ownPanesOn), on top of this process's
// own. Descriptors of other machines are passed on when this process
// routes the call further, and otherwise ignored: their PIDs and sockets
// mean nothing here.

// hopCallers is what a call's descriptors add to the own-pane guard here.
type hopCallers struct {
	// received are every descriptor the call carried, to pass on.
	received []hosts.Caller
	// pids and envs are those of this machine's.
	pids map[int]bool
	envs []Caller
}

type hopKey struct{}

// readCallers is the middleware that reads a call's descriptors into its
// context.
func readCallers(machine string) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if received := hosts.ParseCallers(req.Params.Meta); len(received) > 0 {
				ctx = context.WithValue(ctx, hopKey{}, newHopCallers(received, machine))
			}
			return next(ctx, req)
		}
	}
}

func newHopCallers(received []hosts.Caller, machine string) *hopCallers {
	h := &hopCallers{received: received, pids: map[int]bool{}}
	for _, c := range received {
		if machine == "" || c.Machine != machine {
			continue
		}
		for _, pid := range c.PIDs {
			h.pids[pid] = true
		}
		if c.Pane != "" {
			h.envs = append(h.envs, Caller{SocketPath: c.Socket, Pane: tmux.PaneID(c.Pane)})
		}
	}
	return h
}

// hopCallersOf returns the descriptors of ctx's call (nil: none).
func hopCallersOf(ctx context.Context) *hopCallers {
	h, _ := ctx.Value(hopKey{}).(*hopCallers)
	return h
}

// here reports whether the call carries a caller of this machine.
func (h *hopCallers) here() bool { return h != nil && (len(h.pids) > 0 || len(h.envs) > 0) }

// onServer reports whether a caller's TMUX says it may run on sock's
// server (callerOnServer's test, for each).
func (h *hopCallers) onServer(sock tmux.Socket) bool {
	if h == nil {
		return false
	}
	for _, c := range h.envs {
		if c.on(sock) {
			return true
		}
	}
	return false
}

// find returns the panes among panes that hold a caller: its pane's
// process is one of a caller's ancestors, or its TMUX_PANE on a server
// its TMUX names.
func (h *hopCallers) find(panes []tmux.Pane, sock tmux.Socket) []tmux.PaneID {
	if !h.here() {
		return nil
	}
	var out []tmux.PaneID
	add := func(id tmux.PaneID) {
		for _, x := range out {
			if x == id {
				return
			}
		}
		out = append(out, id)
	}
	for _, p := range panes {
		if !p.Dead && p.PID > 0 && h.pids[p.PID] {
			add(p.ID)
		}
	}
	for _, c := range h.envs {
		if !c.on(sock) {
			continue
		}
		for _, p := range panes {
			if p.ID == c.Pane {
				add(p.ID)
			}
		}
	}
	return out
}

// chain is what a call routed on from here carries: this process's
// descriptor first, then the call's own.
func (h *hopCallers) chain(self hosts.Caller) []hosts.Caller {
	var received []hosts.Caller
	if h != nil {
		received = h.received
	}
	return hosts.Chain(self, received)
}

// selfCaller is this process's descriptor for the calls it routes.
func (d Deps) selfCaller() hosts.Caller {
	c := hosts.Caller{Machine: hosts.MachineID(), Socket: d.Caller.SocketPath, Pane: string(d.Caller.Pane)}
	if d.own != nil {
		c.PIDs = d.own.ancestorList()
	}
	return c
}

// markCallers sets is_caller on infos, panes of srv's server, for a call
// routed here from this machine: true for its callers' panes (and this
// process's own), false for the others.
func (d Deps) markCallers(ctx context.Context, srv *supervisor.Server, infos []PaneInfo) error {
	if !hopCallersOf(ctx).here() {
		return nil
	}
	own, err := d.ownPanesOn(ctx, srv, false)
	if err != nil {
		return err
	}
	for i := range infos {
		b := own.has(tmux.PaneID(infos[i].PaneID))
		infos[i].IsCaller = &b
	}
	return nil
}
