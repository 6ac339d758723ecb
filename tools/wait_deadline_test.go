package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/jobrecord"
)

// shortTimeouts are the timeouts the deadline tests cycle through: a
// wait's deadline falls anywhere in a read, at every length.
var shortTimeouts = []float64{0.1, 0.25, 0.5, 1}

// notHung fails the test when a wait's error result calls the server hung:
// the wait's own deadline running out in a tmux call is the wait timing
// out.
func notHung(t *testing.T, tool string, i int, msg string) {
	t.Helper()
	if strings.Contains(msg, "[timeout]") && strings.Contains(msg, "slow or hung") {
		t.Errorf("%s call %d: %q, want the wait's own timeout", tool, i, msg)
	}
}

// TestWaitForAgentTimesOut (issue 43): wait_for_agent on a working agent
// CLI (the stub's reply slowed, so the turn lasts past every call) with
// short timeouts returns timed_out with the state read last, every time,
// never a tmux call's [timeout]: the wait's deadline is not the reads'.
// Before the fix about one call in four at timeout 1 answered
// "tmux display-message: context deadline exceeded [timeout]".
func TestWaitForAgentTimesOut(t *testing.T) {
	calls := 40
	for _, name := range []string{agentstub.Claude, agentstub.Codex} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each waits out its timeouts on a server of its own
			e := newEnv(t, Mutating)
			stub, p := e.agentCLI(name)
			// Ten chunks 8 s apart: the turn outlasts the calls below.
			stub.SetDelay(8 * time.Second)
			e.ok("submit_prompt", map[string]any{"pane_id": p, "text": "a slow one", "allow_agent": true, "timeout": 30}, nil)
			stub.WaitPrompt(t, 1, 30*time.Second)
			e.waitAgent(p, "working", 30*time.Second)
			bad := 0
			for i := range calls {
				timeout := shortTimeouts[i%len(shortTimeouts)]
				res := e.call("wait_for_agent", map[string]any{"pane_id": p, "timeout": timeout})
				if res.IsError {
					bad++
					notHung(t, "wait_for_agent", i, text(res))
					t.Errorf("wait_for_agent call %d (timeout %g): %s, want timed_out", i, timeout, text(res))
					continue
				}
				var turn agentTurn
				decode(t, res, &turn)
				if !turn.TimedOut || turn.Agent == nil || turn.Agent.State != "working" {
					t.Errorf("wait_for_agent call %d (timeout %g) = %+v, agent %+v; want timed_out, working", i, timeout, turn, turn.Agent)
				}
			}
			t.Logf("%s: %d of %d calls failed", name, bad, calls)
		})
	}
}

// TestWaitsTimeOutOnTheirOwn (issue 43): every other waiting tool, at
// short timeouts, ends with its own timeout outcome while its pane keeps
// changing, never with a tmux call's [timeout].
func TestWaitsTimeOutOnTheirOwn(t *testing.T) {
	rounds := 20
	// Each tool waits out its timeouts on a server of its own, beside
	// the others: the test's time is the longest of them, not their sum.
	t.Run("wait_for_text", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, Mutating)
		// A pane that prints all the time, so that reads are under way
		// at every deadline.
		busy := e.window("while :; do echo tick; sleep 0.01; done")
		e.waitScreen(busy, "ticks", func(s string) bool { return strings.Contains(s, "tick") })
		for i := range rounds {
			timeout := shortTimeouts[i%len(shortTimeouts)]
			res := e.call("wait_for_text", map[string]any{"pane_id": busy, "patterns": []any{"never printed"}, "timeout": timeout})
			var w drive.WaitResult
			if res.IsError {
				notHung(t, "wait_for_text", i, text(res))
				t.Errorf("wait_for_text call %d: %s, want outcome timeout", i, text(res))
				continue
			}
			decode(t, res, &w)
			if w.Outcome != "timeout" {
				t.Errorf("wait_for_text call %d = %+v, want outcome timeout", i, w)
			}
		}
	})
	t.Run("send_keys wait_for", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, Mutating)
		sh := e.shell()
		for i := range rounds {
			res := e.call("send_keys", map[string]any{"pane_id": sh, "keys": "echo tock", "wait_for": "never printed",
				"timeout": shortTimeouts[i%len(shortTimeouts)]})
			if res.IsError {
				notHung(t, "send_keys", i, text(res))
				t.Errorf("send_keys call %d: %s, want the wait's outcome", i, text(res))
				continue
			}
			var out struct {
				Wait *drive.WaitResult `json:"wait"`
			}
			decode(t, res, &out)
			if out.Wait == nil || out.Wait.Outcome != "timeout" {
				t.Errorf("send_keys call %d: wait %+v, want outcome timeout", i, out.Wait)
			}
		}
	})
	t.Run("get_job", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, Mutating)
		id := e.startJob(e.shell(), "while :; do echo tick; sleep 0.01; done")
		for i := range rounds {
			res := e.call("get_job", map[string]any{"job_id": id, "patterns": []any{"never printed"},
				"timeout": shortTimeouts[i%len(shortTimeouts)]})
			if res.IsError {
				notHung(t, "get_job", i, text(res))
				t.Errorf("get_job call %d: %s, want outcome timeout", i, text(res))
				continue
			}
			var j jobResult
			decode(t, res, &j)
			if j.Outcome != "timeout" || j.State != jobrecord.Running {
				t.Errorf("get_job call %d = outcome %q, state %s; want timeout, running", i, j.Outcome, j.State)
			}
		}
	})
	t.Run("wait_for_channel", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, Mutating)
		for i := range rounds {
			msg := e.fails("wait_for_channel", map[string]any{"channel": fmt.Sprintf("never-%d", i),
				"timeout": shortTimeouts[i%len(shortTimeouts)]}, "was not signalled within", "[timeout]")
			notHung(t, "wait_for_channel", i, msg)
		}
	})
	t.Run("run_command", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, Mutating)
		for i := range 4 {
			sh := e.shell()
			res := e.call("run_command", map[string]any{"pane_id": sh, "command": "while :; do echo tick; sleep 0.01; done",
				"timeout": shortTimeouts[i%len(shortTimeouts)]})
			if res.IsError {
				notHung(t, "run_command", i, text(res))
				t.Errorf("run_command call %d: %s, want timed_out", i, text(res))
				continue
			}
			var r drive.RunResult
			decode(t, res, &r)
			if !r.TimedOut {
				t.Errorf("run_command call %d = %+v, want timed_out", i, r)
			}
		}
	})
	t.Run("submit_prompt", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, Mutating)
		// A program that never takes a paste: every call ends at its
		// timeout, with the screen.
		p := e.window("stty -echo; echo READY; exec sleep 600")
		e.waitScreen(p, "READY", func(s string) bool { return strings.Contains(s, "READY") })
		for i := range rounds {
			timeout := shortTimeouts[i%len(shortTimeouts)]
			msg := e.fails("submit_prompt", map[string]any{"pane_id": p, "text": "hello", "timeout": timeout}, "[not_submitted]")
			notHung(t, "submit_prompt", i, msg)
		}
	})
}

// decode decodes a result's structured content into out.
func decode(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	if err := json.Unmarshal(structuredJSON(t, res), out); err != nil {
		t.Fatalf("decode structured content: %v", err)
	}
}
