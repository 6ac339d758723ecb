package guard

import (
	"bytes"
	"context"
	"strings"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// PaneAgent is the agent CLI found in a pane's process tree.
type PaneAgent struct {
	Name   agent.Name
	PID    int
	Exited bool // none runs now; this one did when this process last looked
	// Client is the terminal client (agent.TerminalClient) of a pane
	// whose tree holds no agent but one, and ClientPID its process.
	Client    string
	ClientPID int
}

// maxAgentsSeen bounds the panes whose agent is remembered (to tell
// exited); past it the memory starts over.
const maxAgentsSeen = 4096

// agentSeen is the agent last seen in a pane, and the pane's process then.
type agentSeen struct {
	name    agent.Name
	panePID int
}

// Agents remembers the agent CLI last seen in each pane, to tell an agent
// that exited from a pane that never ran one. One catalog of tools
// shares one.
type Agents struct {
	mu   sync.Mutex
	seen map[paneKey]agentSeen
}

// paneKey names a pane across servers.
type paneKey struct {
	sock tmux.Socket
	pane tmux.PaneID
}

// AgentIn reads pn's process tree, from the pane's process down, for a
// known agent CLI (agent.Detect). When none runs but this process saw one
// in the same pane process before (the agent ended, its shell is back),
// it returns that one, exited; a dead pane's last agent likewise. When
// none runs and none ran, ok is false and the result names the terminal
// client in the tree, if any (agent.TerminalClient).
func (g Guard) AgentIn(ctx context.Context, srv *supervisor.Server, pn tmux.Pane) (PaneAgent, bool, error) {
	key := paneKey{srv.Socket(), pn.ID}
	var found PaneAgent
	ok := false
	if !pn.Dead && pn.PID > 0 {
		pids, err := g.PaneTree(ctx, pn.PID)
		if err != nil {
			return PaneAgent{}, false, err
		}
		procs := agent.Processes(ctx, append([]int{pn.PID}, pids...))
		var p agent.Process
		var name agent.Name
		if name, p, ok = agent.Detect(procs); ok {
			found = PaneAgent{Name: name, PID: p.PID}
		} else if c, cp, isClient := agent.TerminalClient(procs); isClient {
			found = PaneAgent{Client: c, ClientPID: cp.PID}
		}
	}
	m := g.Agents
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil || len(m.seen) >= maxAgentsSeen {
		m.seen = map[paneKey]agentSeen{}
	}
	if ok {
		m.seen[key] = agentSeen{name: found.Name, panePID: pn.PID}
		return found, true, nil
	}
	if seen, was := m.seen[key]; was && (seen.panePID == pn.PID || pn.Dead) {
		return PaneAgent{Name: seen.name, Exited: true}, true, nil
	}
	delete(m.seen, key)
	return found, false, nil
}

// Screen returns pane's visible screen as lines (from the cache when
// unchanged): the visible screen with the default caps, the capture the
// tools' screenRequest makes.
func Screen(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID) ([]string, error) {
	c, err := srv.Capture(ctx, supervisor.CaptureRequest{Pane: pane})
	if err != nil {
		return nil, err
	}
	return strings.Split(string(bytes.TrimRight(c.Content, "\n")), "\n"), nil
}
