package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// agentRounds is how many prompts TestDriveAgentCLIs submits to each CLI:
// TMUX_MCP_SUBMIT_ROUNDS, 6 unless set (the report of issue 33 ran 100).
func agentRounds(t *testing.T) int {
	t.Helper()
	if os.Getenv("TMUX_MCP_SUBMIT_ROUNDS") == "" {
		return 6
	}
	return submitRounds(t)
}

// TestDriveAgentCLIs drives the real agent CLIs (npm; scripts/agent-clis)
// in panes of the test's tmux server against a model stub on loopback:
// every prompt, one-line and multi-line, reaches the model whole and once;
// the states are right where the test knows them; a permission question
// is reported with its text, refuses a prompt, and is answered by
// answer_permission; keys without allow_agent are refused.
func TestDriveAgentCLIs(t *testing.T) {
	for _, name := range []string{agentstub.Claude, agentstub.Codex, agentstub.Gemini} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, Mutating)
			stub, p := e.agentCLI(name)
			e.fails("send_keys", map[string]any{"pane_id": p, "keys": "hello"}, "runs "+name, "[agent_pane]")

			rounds := agentRounds(t)
			var ms []int64
			right, checks, retaken := 0, 0, 0
			for i := range rounds {
				text := fmt.Sprintf("prompt %d: say something", i)
				if i%3 == 2 {
					text = fmt.Sprintf("prompt %d line one\nline two\nline three", i)
				}
				var got submitted
				e.ok("submit_prompt", map[string]any{"pane_id": p, "text": text, "allow_agent": true, "timeout": 30}, &got)
				ms = append(ms, got.SubmittedMS)
				if got.Enters > 1 {
					retaken++
				}
				if gotPrompt := stub.WaitPrompt(t, i+1, 30*time.Second); gotPrompt != text {
					t.Fatalf("prompt %d reached the model as %q, want %q", i, gotPrompt, text)
				}
				checks++
				if got.Agent != nil && (got.Agent.State == "working" || got.Agent.State == "waiting_for_input") {
					right++
				} else {
					t.Errorf("prompt %d: state after submission %+v, want working (or already done)", i, got.Agent)
				}
				var turn agentTurn
				e.ok("wait_for_agent", map[string]any{"pane_id": p, "timeout": 30}, &turn)
				checks++
				if turn.TimedOut || turn.Agent == nil || turn.Agent.State != "waiting_for_input" || !strings.Contains(turn.Answer, "reply to: prompt "+fmt.Sprint(i)) {
					t.Errorf("prompt %d: wait_for_agent = %+v, want waiting_for_input with the reply", i, turn)
				} else {
					right++
				}
			}
			if n := len(stub.Prompts()); n != rounds {
				t.Errorf("the model got %d prompts, want %d", n, rounds)
			}
			slices.Sort(ms)
			t.Logf("%s: %d of %d prompts submitted and verified (%d after an Enter taken as a new line); submitted_ms p50 %d, p95 %d, max %d; state right %d of %d",
				name, rounds, rounds, retaken, ms[len(ms)/2], ms[len(ms)*95/100], ms[len(ms)-1], right, checks)

			// A permission question.
			marker := filepath.Join(t.TempDir(), "touched")
			stub.Push(agentstub.Reply{Command: "touch " + marker})
			e.ok("submit_prompt", map[string]any{"pane_id": p, "text": "create the marker file", "allow_agent": true, "timeout": 30}, nil)
			var turn agentTurn
			e.ok("wait_for_agent", map[string]any{"pane_id": p, "timeout": 30}, &turn)
			if turn.Agent == nil || turn.Agent.State != "asking_permission" || !strings.Contains(turn.Agent.Question, "touch "+marker) {
				t.Fatalf("wait_for_agent = %+v (elapsed %v), want asking_permission with the command; screen now:\n%s", turn.Agent, turn.Elapsed, e.tmux("capture-pane", "-p", "-t", p))
			}
			e.fails("submit_prompt", map[string]any{"pane_id": p, "text": "hello", "allow_agent": true}, "is asking a question", "[asking_permission]")
			e.fails("send_keys", map[string]any{"pane_id": p, "keys": "1", "enter": false, "allow_agent": true},
				"is asking a question; keys typed now would answer it", "touch "+marker, "[asking_permission]")
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the command ran before it was allowed")
			}
			e.ok("answer_permission", map[string]any{"pane_id": p, "answer": "yes"}, nil)
			tmuxtest.WaitFor(t, 30*time.Second, "the allowed command's file", func() bool {
				_, err := os.Stat(marker)
				return err == nil
			})
			e.ok("wait_for_agent", map[string]any{"pane_id": p, "timeout": 30}, &turn)
			if turn.Agent == nil || turn.Agent.State != "waiting_for_input" {
				t.Errorf("after the answer: %+v, want waiting_for_input", turn.Agent)
			}
			e.fails("answer_permission", map[string]any{"pane_id": p, "answer": "yes"}, "is not asking anything", "[not_asking]")
		})
	}
}

// agentCLI starts the real agent CLI name (agentstub.CLI: skipped, or
// failed under CI, when it is not installed) in a new 120x40 window of
// the test's server, against a model stub of its own on loopback, and
// waits until tmux-mcp reads it waiting for input. It returns the stub
// and the pane.
func (e *env) agentCLI(name string) (*agentstub.Stub, string) {
	e.t.Helper()
	exe := agentstub.CLI(e.t, name)
	stub := agentstub.Start(e.t)
	l := stub.Launch(e.t, name, exe)
	args := append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:"}, l.CommandArgs()...)
	p := e.tmux(args...)
	panePID, err := strconv.Atoi(e.tmux("display-message", "-p", "-t", p, "#{pane_pid}"))
	if err != nil {
		e.t.Fatal(err)
	}
	tmuxtest.Reap(e.t, panePID)
	e.tmux("resize-window", "-t", p, "-x", "120", "-y", "40")
	e.waitAgent(p, "waiting_for_input", 60*time.Second)
	return stub, p
}

// agentState is the agent get_pane_info reads in pane p (nil for none).
func (e *env) agentState(p string) *AgentInfo {
	e.t.Helper()
	var pi PaneInfo
	e.ok("get_pane_info", map[string]any{"pane_id": p}, &pi)
	return pi.Agent
}

// waitAgent waits until get_pane_info reads the agent in pane p in state.
func (e *env) waitAgent(p, state string, timeout time.Duration) *AgentInfo {
	e.t.Helper()
	var a *AgentInfo
	tmuxtest.WaitFor(e.t, timeout, "the agent in "+p+" "+state, func() bool {
		a = e.agentState(p)
		return a != nil && a.State == state
	})
	return a
}
