package hosts

import (
	"context"
	"encoding/json"
	"regexp"

	"github.com/mark3labs/mcp-go/mcp"
)

// The caller through the hops. A tmux-mcp finds the pane it runs in (the
// agent's own, which no tool may type into) from its process ancestry and
// TMUX/TMUX_PANE. The tmux-mcp that sshd starts on a host has neither: it
// is not in the agent's process tree, and its environment is ssh's. When
// the host is this same machine (ssh://localhost, a hosts file shared by
// several machines), a call routed there would type into the agent's own
// pane. So each routed call carries, in its _meta under CallersKey, a
// descriptor of each caller it has come through: the machine it runs on
// (MachineID: same machine, same PID namespace, so that PIDs compare),
// its process ancestry and its TMUX socket and TMUX_PANE. This side puts
// its own first, then those of the call it received (a host that routes
// further passes them on); a tmux-mcp that receives them adds those of
// its own machine to its own-pane guard for that call. A descriptor can
// only add panes to guard, never remove one: one a client sends itself
// makes the guard stricter at worst, and cannot push this side's own out
// (its own comes first, the bound cuts the others).

// CallersKey is the _meta key of the callers' descriptors.
const CallersKey = "tmux-mcp/callers"

// Bounds of what a call's descriptors hold.
const (
	maxCallers    = 8
	maxCallerPIDs = 64
	maxField      = 4096
)

// Caller describes the tmux-mcp a call came through: where it runs.
type Caller struct {
	// Machine is MachineID() there.
	Machine string `json:"machine"`
	// PIDs are its process and its ancestors, nearest first.
	PIDs []int `json:"pids,omitempty"`
	// Socket and Pane are its TMUX (the socket path) and TMUX_PANE.
	Socket string `json:"tmux_socket,omitempty"`
	Pane   string `json:"tmux_pane,omitempty"`
}

var paneIDRE = regexp.MustCompile(`^%[0-9]{1,10}$`)

// valid keeps what can be compared of c: a machine, positive PIDs
// (bounded), a socket path and a pane ID of tmux's form.
func (c Caller) valid() (Caller, bool) {
	if c.Machine == "" || len(c.Machine) > maxField {
		return Caller{}, false
	}
	out := Caller{Machine: c.Machine}
	for _, pid := range c.PIDs {
		if pid > 1 && len(out.PIDs) < maxCallerPIDs {
			out.PIDs = append(out.PIDs, pid)
		}
	}
	if len(c.Socket) <= maxField {
		out.Socket = c.Socket
	}
	if paneIDRE.MatchString(c.Pane) {
		out.Pane = c.Pane
	}
	return out, len(out.PIDs) > 0 || out.Pane != ""
}

// ParseCallers returns the descriptors a request's _meta carries, those
// that can be compared, at most maxCallers.
func ParseCallers(meta *mcp.Meta) []Caller {
	if meta == nil || meta.AdditionalFields == nil {
		return nil
	}
	raw, ok := meta.AdditionalFields[CallersKey]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var in []Caller
	if json.Unmarshal(b, &in) != nil {
		return nil
	}
	var out []Caller
	for _, c := range in {
		if v, ok := c.valid(); ok && len(out) < maxCallers {
			out = append(out, v)
		}
	}
	return out
}

// Chain is what a routed call carries: self first, then the callers of
// the call being routed, bounded (self is never cut).
func Chain(self Caller, received []Caller) []Caller {
	out := make([]Caller, 0, 1+len(received))
	if v, ok := self.valid(); ok {
		out = append(out, v)
	}
	for _, c := range received {
		if len(out) >= maxCallers {
			break
		}
		out = append(out, c)
	}
	return out
}

type callersKey struct{}

// WithCallers returns ctx whose routed calls carry callers (Chain's).
func WithCallers(ctx context.Context, callers []Caller) context.Context {
	return context.WithValue(ctx, callersKey{}, callers)
}

// CallersFrom returns the callers WithCallers put in ctx.
func CallersFrom(ctx context.Context) []Caller {
	callers, _ := ctx.Value(callersKey{}).([]Caller)
	return callers
}

// callersMeta adds ctx's callers to a routed call's _meta.
func callersMeta(ctx context.Context, m *mcp.Meta) *mcp.Meta {
	callers := CallersFrom(ctx)
	if len(callers) == 0 {
		return m
	}
	if m == nil {
		m = &mcp.Meta{}
	}
	if m.AdditionalFields == nil {
		m.AdditionalFields = map[string]any{}
	}
	m.AdditionalFields[CallersKey] = callers
	return m
}
