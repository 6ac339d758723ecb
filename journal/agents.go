package journal

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/proc"
)

// Agent is the agent CLI a pane ran when its snapshot was taken and, when
// it could be read from the process, the conversation the CLI was writing
// to and the command line that resumes it (agent.ConversationOf).
type Agent struct {
	CLI string `json:"cli"`
	PID int    `json:"pid"`
	// Own: the agent was the pane's own process, not a program started
	// from its shell. A resume is then the pane's command; otherwise it is
	// typed into the restored shell.
	Own          bool   `json:"own,omitempty"`
	Conversation string `json:"conversation,omitempty"`
	// Dir is where the CLI ran, and where its resume runs.
	Dir    string   `json:"dir,omitempty"`
	Resume []string `json:"resume,omitempty"`
	// NoResume says why the agent cannot be resumed, when it cannot.
	NoResume string `json:"no_resume,omitempty"`
}

// readAgent returns the agent CLI in the process tree of the pane whose
// process is panePID, and its conversation; nil when none runs there.
func readAgent(ctx context.Context, panePID int) *Agent {
	if panePID <= 0 {
		return nil
	}
	below, _, err := proc.Descendants(ctx, panePID)
	if err != nil {
		return nil
	}
	procs := make([]agent.Process, 0, len(below)+1)
	for _, pid := range append([]int{panePID}, below...) {
		if args := cmdline(pid); args != nil {
			procs = append(procs, agent.Process{PID: pid, Args: args})
		}
	}
	name, cli, ok := agent.Detect(procs)
	if !ok {
		return nil
	}
	a := &Agent{CLI: string(name), PID: cli.PID, Own: cli.PID == panePID}
	var under []agent.Process
	if pids, _, err := proc.Descendants(ctx, cli.PID); err == nil {
		for _, pid := range pids {
			under = append(under, agent.Process{PID: pid, Args: cmdline(pid)})
		}
	}
	c, err := agent.ConversationOf(name, cli, under)
	if err != nil {
		a.NoResume = err.Error()
		return a
	}
	a.Conversation, a.Dir, a.Resume = c.ID, c.Dir, c.ResumeArgv()
	return a
}
