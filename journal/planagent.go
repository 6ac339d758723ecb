package journal

import (
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// AgentOutcome says what a restore does with the agent CLI a pane ran:
// resume its conversation, or why not.
type AgentOutcome struct {
	Pane         tmux.PaneID `json:"pane"` // the pane's ID in the snapshot
	CLI          string      `json:"cli"`
	Conversation string      `json:"conversation,omitempty"`
	// Resumed: the restore starts the CLI's resume of the conversation in
	// the restored pane (as its command, or typed into its shell).
	Resumed bool `json:"resumed"`
	// Reason says why it is not resumed.
	Reason string `json:"reason,omitempty"`
}

// resumesAgent reports whether a restore is asked to bring pn's agent
// back: --resume-agents, --restore-commands (which never starts an agent
// afresh), or the restore flag of the tool that created the pane.
func (p *planner) resumesAgent(pn Pane) bool {
	return p.o.ResumeAgents || p.o.RestoreCommands || pn.Created != nil && pn.Created.Restore
}

// agentCommand is how pn's agent comes back: its CLI's resume of the
// recorded conversation, as the pane's command when the pane was started
// with a command of its own (the agent, or a wrapper that ran it), typed
// into the restored shell when a shell was the pane's program. The
// command the pane was started with is never run again: it would start
// the agent afresh, a new conversation under the old pane.
func (p *planner) agentCommand(pn Pane) (argv []string, typed string) {
	a := pn.Agent
	if !p.resumesAgent(pn) || len(a.Resume) == 0 {
		return nil, ""
	}
	if a.Own || pn.StartCommand != "" || pn.Created != nil && len(pn.Created.Argv) > 0 {
		return a.Resume, ""
	}
	return nil, shellquote.Join(a.Resume)
}

// outcomeOf is what a restore under p's options does with pn's agent.
func (p *planner) outcomeOf(pn Pane) AgentOutcome {
	a := pn.Agent
	o := AgentOutcome{Pane: pn.ID, CLI: a.CLI, Conversation: a.Conversation}
	switch {
	case !p.resumesAgent(pn):
		o.Reason = "resuming agents is off (--resume-agents, or restore_sessions with resume_agents)"
	case len(a.Resume) == 0:
		o.Reason = "its conversation is not known: " + a.NoResume
	default:
		o.Resumed = true
	}
	return o
}

// agentOutcome records what the plan does with pn's agent.
func (p *planner) agentOutcome(pn Pane) {
	o := p.outcomeOf(pn)
	p.plan.Agents = append(p.plan.Agents, o)
	if o.Resumed {
		p.note("pane %s: %s resumes conversation %s", pn.ID, o.CLI, o.Conversation)
	} else {
		p.note("pane %s ran %s, not started again: %s", pn.ID, o.CLI, o.Reason)
	}
}

// agentDir is where pn is restored when its agent is resumed: where the
// agent ran (Claude Code finds its sessions by that directory).
func (p *planner) agentDir(pn Pane) (string, bool) {
	if pn.Agent == nil || pn.Agent.Dir == "" || !p.resumesAgent(pn) || len(pn.Agent.Resume) == 0 {
		return "", false
	}
	return pn.Agent.Dir, true
}

// String is the outcome for a person.
func (o AgentOutcome) String() string {
	if o.Resumed {
		return fmt.Sprintf("%s in pane %s: resumed conversation %s", o.CLI, o.Pane, o.Conversation)
	}
	return fmt.Sprintf("%s in pane %s: not resumed: %s", o.CLI, o.Pane, o.Reason)
}
