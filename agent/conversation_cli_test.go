package agent_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
	"github.com/tmux-mcp/tmux-mcp/jobs"
)

// TestConversationOfRealCLIs holds two turns with the real Claude Code and
// Codex CLI against the model stub, reads each one's conversation from its
// process, ends the tmux server under it, and starts the CLI's resume of
// that conversation in a new server: the stub's next request carries both
// earlier turns, so the conversation was resumed, not started again.
func TestConversationOfRealCLIs(t *testing.T) {
	for _, name := range []string{agentstub.Claude, agentstub.Codex} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			exe := agentstub.CLI(t, name)
			s := agentstub.Start(t)
			l := s.Launch(t, name, exe)
			p := agentstub.Run(t, l)
			turns := []string{"first prompt alpha", "second prompt beta"}
			for i, prompt := range turns {
				p.Turn(s, name, prompt, i+1)
			}
			c := conversationIn(t, p)
			if c.CLI != agent.Name(name) || c.Dir != l.Dir {
				t.Fatalf("conversation = %+v, want CLI %s in %s", c, name, l.Dir)
			}
			resume := c.ResumeArgv()
			if len(resume) < 3 || resume[len(resume)-1] != c.ID {
				t.Fatalf("ResumeArgv() = %q, want the CLI and its resume of %s", resume, c.ID)
			}
			p.Server.Kill()

			l.Argv = resume
			again := agentstub.Run(t, l)
			again.WaitText(turns[1], 60*time.Second) // the transcript is back on screen
			again.Turn(s, name, "third prompt gamma", len(turns)+1)
			body := lastTurn(s)
			for _, prompt := range turns {
				if !strings.Contains(body, prompt) {
					t.Errorf("the request after the resume does not carry %q: the conversation was not resumed", prompt)
				}
			}
			if got := conversationIn(t, again); got.ID != c.ID {
				t.Errorf("after the resume the CLI writes to %s, want %s", got.ID, c.ID)
			}
		})
	}
}

// conversationIn finds the agent CLI in p's process tree and reads its
// conversation.
func conversationIn(t *testing.T, p *agentstub.Pane) agent.Conversation {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(p.PID()))
	if err != nil {
		t.Fatal(err)
	}
	pids, err := jobs.PaneTree(context.Background(), pid)
	if err != nil {
		t.Fatal(err)
	}
	var procs []agent.Process
	for _, q := range append([]int{pid}, pids...) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(q) + "/cmdline")
		if err == nil {
			procs = append(procs, agent.Process{PID: q, Args: strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")})
		}
	}
	name, cli, ok := agent.Detect(procs)
	if !ok {
		t.Fatalf("no agent CLI in the pane's tree:\n%s", p.Tree())
	}
	var below []agent.Process
	for _, q := range procs {
		if q.PID != cli.PID && q.PID != pid {
			below = append(below, q)
		}
	}
	c, err := agent.ConversationOf(name, cli, below)
	if err != nil {
		t.Fatalf("ConversationOf(%s): %v", name, err)
	}
	return c
}

// lastTurn is the body of the stub's latest request that carries a
// prompt (Codex asks for a title in a request of its own).
func lastTurn(s *agentstub.Stub) string {
	rs := s.Requests()
	for i := len(rs) - 1; i >= 0; i-- {
		if strings.Contains(rs[i].Body, "third prompt gamma") {
			return rs[i].Body
		}
	}
	return ""
}
