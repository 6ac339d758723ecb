package journal

import (
	"slices"
	"strings"
	"testing"
)

// TestPlanAgents: a pane that ran an agent CLI comes back with the CLI's
// resume of its conversation only when asked, in the agent's directory,
// as the pane's command when the agent was the pane's process and typed
// into the shell when it ran under one; never with the command that
// started it (a fresh conversation), and never when its conversation is
// not known. Each pane's outcome is reported.
func TestPlanAgents(t *testing.T) {
	const id = "8495c1c5-995d-446d-809c-62c83285613f"
	pane := func(p Pane) *Snapshot {
		p.ID, p.Index, p.Path, p.Active = "%1", 0, "/w/sub", true
		return &Snapshot{Server: Server{PID: 1, StartTime: 1}, Sessions: []Session{{ID: "$1", Name: "s", Windows: []Window{
			{ID: "@1", Index: 0, Name: "w", Panes: []Pane{p}}}}}}
	}
	resume := []string{"/opt/claude", "--resume", id}
	own := &Agent{CLI: "claude", PID: 9, Own: true, Conversation: id, Dir: "/w", Resume: resume}
	typed := &Agent{CLI: "claude", PID: 9, Conversation: id, Dir: "/w", Resume: resume}
	unknown := &Agent{CLI: "gemini", PID: 9, NoResume: "agent: tmux-mcp cannot resume this CLI's conversations"}
	started := &Created{Argv: []string{"/opt/claude"}, Env: []string{"ANTHROPIC_BASE_URL=http://stub"}}
	optIn := &Created{Argv: []string{"/opt/claude"}, Restore: true}
	tests := []struct {
		name        string
		pane        Pane
		o           PlanOptions
		want        []string // the first step, then any typed command
		wantResumed bool
		wantReason  string
	}{
		{"off: a shell in the pane's directory", Pane{Agent: own, Created: started}, PlanOptions{},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w/sub -e ANTHROPIC_BASE_URL=http://stub`}, false, "resuming agents is off"},
		{"the pane's own process: its resume is the pane's command", Pane{Agent: own, Created: started}, PlanOptions{ResumeAgents: true},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w -e ANTHROPIC_BASE_URL=http://stub -- /opt/claude --resume ` + id}, true, ""},
		{"under the shell: typed", Pane{Agent: typed, Argv: []string{"claude", "fix it"}, InShell: true}, PlanOptions{ResumeAgents: true},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w`, `send-keys -t {%1} -l -- "/opt/claude --resume ` + id + `"`, `send-keys -t {%1} Enter`}, true, ""},
		{"--restore-commands resumes, never starts afresh", Pane{Agent: own, Created: started}, PlanOptions{RestoreCommands: true},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w -e ANTHROPIC_BASE_URL=http://stub -- /opt/claude --resume ` + id}, true, ""},
		{"the creating tool's restore flag resumes", Pane{Agent: own, Created: optIn}, PlanOptions{},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w -- /opt/claude --resume ` + id}, true, ""},
		{"under a start command: the resume in its place", Pane{Agent: typed, StartCommand: `"env -i sh -c claude"`}, PlanOptions{ResumeAgents: true, RestoreCommands: true},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w -- /opt/claude --resume ` + id}, true, ""},
		{"conversation not known: nothing started, reported", Pane{Agent: unknown, Created: optIn}, PlanOptions{ResumeAgents: true, RestoreCommands: true},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w/sub`}, false, "its conversation is not known: agent: tmux-mcp cannot resume"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := Plan(pane(tt.pane), emptyLive(0), nil, tt.o)
			var sel []string
			for _, s := range stepStrings(plan) {
				if strings.HasPrefix(s, "new-session") || strings.HasPrefix(s, "send-keys") {
					sel = append(sel, s)
				}
			}
			if !slices.Equal(sel, tt.want) {
				t.Errorf("steps = %q, want %q", sel, tt.want)
			}
			if len(plan.Agents) != 1 {
				t.Fatalf("agents = %+v, want one outcome", plan.Agents)
			}
			got := plan.Agents[0]
			if got.Pane != "%1" || got.CLI != tt.pane.Agent.CLI || got.Resumed != tt.wantResumed || !strings.Contains(got.Reason, tt.wantReason) {
				t.Errorf("outcome = %+v, want pane %%1, %s, resumed %v, reason containing %q", got, tt.pane.Agent.CLI, tt.wantResumed, tt.wantReason)
			}
		})
	}
}
