package journal

import (
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestAgentReturns: the journal says, per agent pane of its latest
// snapshot, what a restore after a tmux death would do with the agent
// (here a process named claude whose conversation cannot be read: not
// resumed, and why), and after a restore that resumed one, that it came
// back, under the restored pane's ID.
func TestAgentReturns(t *testing.T) {
	claude := agentstub.Lookalike(t, "claude")
	ts := tmuxtest.New(t)
	j, _ := mustOpen(t, "", &Options{ResumeAgents: true})
	sup := newSup(t, ts, supervisor.Config{})
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Replay(testCtx(t), []string{"new-session", "-d", "-s", "team", "exec " + claude + " 600"}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Replay(testCtx(t), []string{"split-window", "-t", "=team:", "exec sleep 600"}); err != nil {
		t.Fatal(err)
	}
	panes := strings.Fields(ts.MustTmux("list-panes", "-t", "=team:", "-F", "#{pane_id}"))
	tmuxtest.WaitFor(t, 10*time.Second, "the agent pane's program", func() bool {
		pid, _ := ts.Tmux("display-message", "-p", "-t", panes[0], "#{pane_pid}")
		return agentstub.Execed(pid, claude)
	})
	if _, err := j.TakeSnapshot(testCtx(t), srv); err != nil {
		t.Fatal(err)
	}
	rs, err := j.AgentReturns(srv.Socket())
	if err != nil {
		t.Fatal(err)
	}
	got, ok := rs[tmux.PaneID(panes[0])]
	if len(rs) != 1 || !ok || got.CLI != "claude" || got.Resumed || got.CameBack || !strings.Contains(got.Reason, "its conversation is not known") {
		t.Errorf("AgentReturns = %+v, want pane %s's claude, not resumed: its conversation is not known", rs, panes[0])
	}

	// A restore resumed an agent: its restored pane says it came back.
	j.cameBackIn(srv.Socket(), []AgentOutcome{{Pane: "%40", CLI: "codex", Conversation: "c0ffee", Resumed: true},
		{Pane: "%41", CLI: "gemini", Reason: "not known"}}, map[string]string{"%40": panes[1], "%41": "%99"})
	rs, err = j.AgentReturns(srv.Socket())
	if err != nil {
		t.Fatal(err)
	}
	back := rs[tmux.PaneID(panes[1])]
	if !back.CameBack || back.CLI != "codex" || back.Conversation != "c0ffee" {
		t.Errorf("AgentReturns of the restored pane %s = %+v, want codex came back on c0ffee", panes[1], back)
	}
	if _, ok := rs["%99"]; ok {
		t.Errorf("an agent the restore did not resume is said to have come back: %+v", rs["%99"])
	}
}
