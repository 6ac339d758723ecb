package tools

import (
	"context"
	"errors"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/guard"
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

// readAgent returns the agent CLI pn runs and what its screen says (nil
// when it runs none), and the screen's reading.
func (d Deps) readAgent(ctx context.Context, srv *supervisor.Server, pn tmux.Pane) (*AgentInfo, agent.Reading, error) {
	pa, ok, err := d.guard().AgentIn(ctx, srv, pn)
	if err != nil || !ok {
		return nil, agent.Reading{}, err
	}
	if pa.Exited {
		return &AgentInfo{Name: string(pa.Name), State: string(agent.Exited)}, agent.Reading{State: agent.Exited}, nil
	}
	lines, err := guard.Screen(ctx, srv, pn.ID)
	if err != nil {
		return nil, agent.Reading{}, err
	}
	r := agent.Read(pa.Name, lines)
	return &AgentInfo{Name: string(pa.Name), State: string(r.State), Question: r.Question, PID: pa.PID}, r, nil
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
