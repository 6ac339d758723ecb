package tools

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/shirou/gopsutil/v3/process"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// AgentInfo is the agent CLI a pane runs (package agent's table: claude,
// codex, gemini, opencode, aider, cursor-agent) and what it is doing.
type AgentInfo struct {
	Name string `json:"name"`
	// State is working, waiting_for_input, asking_permission, exited or
	// unknown (a screen the agent's rules do not explain).
	State    string `json:"state"`
	Question string `json:"question,omitempty"`
	PID      int    `json:"pid,omitempty"`
}

// paneAgent is the agent CLI found in a pane's process tree.
type paneAgent struct {
	name   agent.Name
	pid    int
	exited bool // none runs now; this one did when this process last looked
	// client is the terminal client (agent.TerminalClient) of a pane
	// whose tree holds no agent but one, and clientPID its process.
	client    string
	clientPID int
}

// maxAgentsSeen bounds the panes whose agent is remembered (to tell
// exited); past it the memory starts over.
const maxAgentsSeen = 4096

// agentSeen is the agent last seen in a pane, and the pane's process then.
type agentSeen struct {
	name    agent.Name
	panePID int
}

// agentIn reads pn's process tree, from the pane's process down, for a
// known agent CLI (agent.Detect). When none runs but this process saw one
// in the same pane process before (the agent ended, its shell is back),
// it returns that one, exited; a dead pane's last agent likewise. When
// none runs and none ran, ok is false and the result names the terminal
// client in the tree, if any (agent.TerminalClient).
func (d Deps) agentIn(ctx context.Context, srv *supervisor.Server, pn tmux.Pane) (paneAgent, bool, error) {
	key := paneKey{Socket: srv.Socket(), Pane: pn.ID}
	var found paneAgent
	ok := false
	if !pn.Dead && pn.PID > 0 {
		pids, err := jobs.PaneTree(ctx, pn.PID)
		if err != nil {
			return paneAgent{}, false, err
		}
		procs := make([]agent.Process, 0, len(pids)+1)
		for _, pid := range append([]int{pn.PID}, pids...) {
			args, err := (&process.Process{Pid: int32(pid)}).CmdlineSliceWithContext(ctx)
			if err != nil {
				continue // gone meanwhile, or not ours to read
			}
			procs = append(procs, agent.Process{PID: pid, Args: args})
		}
		var p agent.Process
		var name agent.Name
		if name, p, ok = agent.Detect(procs); ok {
			found = paneAgent{name: name, pid: p.PID}
		} else if c, cp, isClient := agent.TerminalClient(procs); isClient {
			found = paneAgent{client: c, clientPID: cp.PID}
		}
	}
	io := d.panes
	io.mu.Lock()
	defer io.mu.Unlock()
	if io.agents == nil || len(io.agents) >= maxAgentsSeen {
		io.agents = map[paneKey]agentSeen{}
	}
	if ok {
		io.agents[key] = agentSeen{name: found.name, panePID: pn.PID}
		return found, true, nil
	}
	if seen, was := io.agents[key]; was && (seen.panePID == pn.PID || pn.Dead) {
		return paneAgent{name: seen.name, exited: true}, true, nil
	}
	delete(io.agents, key)
	return found, false, nil
}

// readAgent returns the agent CLI pn runs and what its screen says (nil
// when it runs none), and the screen's reading.
func (d Deps) readAgent(ctx context.Context, srv *supervisor.Server, pn tmux.Pane) (*AgentInfo, agent.Reading, error) {
	pa, ok, err := d.agentIn(ctx, srv, pn)
	if err != nil || !ok {
		return nil, agent.Reading{}, err
	}
	if pa.exited {
		return &AgentInfo{Name: string(pa.name), State: string(agent.Exited)}, agent.Reading{State: agent.Exited}, nil
	}
	lines, err := paneScreen(ctx, srv, pn.ID)
	if err != nil {
		return nil, agent.Reading{}, err
	}
	r := agent.Read(pa.name, lines)
	return &AgentInfo{Name: string(pa.name), State: string(r.State), Question: r.Question, PID: pa.pid}, r, nil
}

// paneScreen returns pane's visible screen as lines (from the cache when
// unchanged).
func paneScreen(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID) ([]string, error) {
	c, err := srv.Capture(ctx, screenRequest(pane))
	if err != nil {
		return nil, err
	}
	return strings.Split(string(bytes.TrimRight(c.Content, "\n")), "\n"), nil
}

// withAgents sets the agent of each pane of out that runs one (panes,
// the same panes in the same order). A pane that went meanwhile is left
// without.
func (d Deps) withAgents(ctx context.Context, srv *supervisor.Server, panes []tmux.Pane, out []PaneInfo) error {
	for i, pn := range panes {
		a, _, err := d.readAgent(ctx, srv, pn)
		if err != nil {
			if errors.Is(err, tmux.ErrNotFound) {
				continue
			}
			return err
		}
		out[i].Agent = a
	}
	return nil
}
