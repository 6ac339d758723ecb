package journal

import (
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// AgentReturn is what becomes of a pane's agent CLI when tmux dies: what
// a restore would do with it (the journal's latest snapshot, under this
// journal's settings), or, once a restore by this process resumed it,
// that it came back.
type AgentReturn struct {
	AgentOutcome
	// CameBack: a restore resumed the agent in this pane (Pane is the
	// restored pane's ID).
	CameBack bool
}

// AgentReturns says, per pane of sock's server that ran an agent CLI in
// the latest snapshot, what a restore after a tmux death would do with the
// agent, and for the panes a restore of this process resumed an agent in,
// that it came back. restore_sessions' resume_agents may still resume an
// agent the settings leave out.
func (j *Journal) AgentReturns(sock tmux.Socket) (map[tmux.PaneID]AgentReturn, error) {
	snap, err := j.Snapshot(sock, 0)
	if err != nil || snap == nil {
		return nil, err
	}
	p := &planner{o: j.planOptions()}
	out := map[tmux.PaneID]AgentReturn{}
	for _, s := range snap.Sessions {
		for _, w := range s.Windows {
			for _, pn := range w.Panes {
				if pn.Agent != nil {
					out[pn.ID] = AgentReturn{AgentOutcome: p.outcomeOf(pn)}
				}
			}
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for id, o := range j.state(socketKey(sock)).cameBack {
		if r, ok := out[id]; !ok || r.CLI == o.CLI {
			out[id] = AgentReturn{AgentOutcome: o, CameBack: true}
		}
	}
	return out, nil
}

// cameBackIn records the agents a restore resumed, by their restored
// panes' IDs (ids: old to new).
func (j *Journal) cameBackIn(sock tmux.Socket, agents []AgentOutcome, ids map[string]string) {
	back := map[tmux.PaneID]AgentOutcome{}
	for _, a := range agents {
		if id, ok := ids[string(a.Pane)]; ok && a.Resumed {
			a.Pane = tmux.PaneID(id)
			back[a.Pane] = a
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.state(socketKey(sock)).cameBack = back
}
