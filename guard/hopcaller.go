package guard

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/hosts"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The caller through the hops (hosts/caller.go). A call routed here from
// a tmux-mcp on this same machine (a --host that is this machine) carries
// that tmux-mcp's process ancestry and TMUX/TMUX_PANE, and those of every
// tmux-mcp before it: the panes they find on a server are the caller's
// own panes too, for this call (OwnPanesOn), on top of this process's
// own. Descriptors of other machines are passed on when this process
// routes the call further, and otherwise ignored: their PIDs and sockets
// mean nothing here.

// HopCallers is what a call's descriptors add to the own-pane guard here.
type HopCallers struct {
	// received are every descriptor the call carried, to pass on.
	received []hosts.Caller
	// pids and envs are those of this machine's.
	pids map[int]bool
	envs []Caller
}

type hopKey struct{}

// ReadCallers is the middleware that reads a call's descriptors into its
// context; machine is this machine's ID (hosts.MachineID).
func ReadCallers(machine string) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if received := hosts.ParseCallers(req.Params.Meta); len(received) > 0 {
				ctx = context.WithValue(ctx, hopKey{}, newHopCallers(received, machine))
			}
			return next(ctx, req)
		}
	}
}

func newHopCallers(received []hosts.Caller, machine string) *HopCallers {
	h := &HopCallers{received: received, pids: map[int]bool{}}
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

// HopCallersOf returns the descriptors of ctx's call (nil: none).
func HopCallersOf(ctx context.Context) *HopCallers {
	h, _ := ctx.Value(hopKey{}).(*HopCallers)
	return h
}

// Here reports whether the call carries a caller of this machine.
func (h *HopCallers) Here() bool { return h != nil && (len(h.pids) > 0 || len(h.envs) > 0) }

// OnServer reports whether a caller's TMUX says it may run on sock's
// server (CallerOnServer's test, for each).
func (h *HopCallers) OnServer(sock tmux.Socket) bool {
	if h == nil {
		return false
	}
	for _, c := range h.envs {
		if c.On(sock) {
			return true
		}
	}
	return false
}

// find returns the panes among panes that hold a caller: its pane's
// process is one of a caller's ancestors, or its TMUX_PANE on a server
// its TMUX names.
func (h *HopCallers) find(panes []tmux.Pane, sock tmux.Socket) []tmux.PaneID {
	if !h.Here() {
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
		if !c.On(sock) {
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

// Chain is what a call routed on from here carries: this process's
// descriptor first, then the call's own.
func (h *HopCallers) Chain(self hosts.Caller) []hosts.Caller {
	var received []hosts.Caller
	if h != nil {
		received = h.received
	}
	return hosts.Chain(self, received)
}

// SelfCaller is this process's descriptor for the calls it routes.
func (g Guard) SelfCaller() hosts.Caller {
	c := hosts.Caller{Machine: hosts.MachineID(), Socket: g.Caller.SocketPath, Pane: string(g.Caller.Pane)}
	if g.Own != nil {
		c.PIDs = g.Own.ancestorList()
	}
	return c
}
