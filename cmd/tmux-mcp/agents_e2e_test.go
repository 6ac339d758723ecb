package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// agentState is the agent object of a pane or of a turn, as a client
// decodes it.
type agentState struct {
	Agent *struct {
		Name     string `json:"name"`
		State    string `json:"state"`
		Question string `json:"question"`
	} `json:"agent"`
	Answer string `json:"answer"`
}

// decodeAgent decodes a tool result that carries an agent; a tool error
// fails the test.
func decodeAgent(t *testing.T, tool string, res wireResult) agentState {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s: %s", tool, res.text())
	}
	var out agentState
	if err := json.Unmarshal(res.Structured, &out); err != nil || out.Agent == nil {
		t.Fatalf("%s: %v in %s", tool, err, res.Structured)
	}
	return out
}

// TestDriveClaudeOverStdio: the built binary, over stdio, drives the real
// Claude Code (against the model stub) in a pane of an isolated server: the
// pane says claude and waiting_for_input; a prompt typed without
// allow_agent is refused; submit_prompt submits a two-line prompt whole;
// wait_for_agent returns its reply; a permission question is reported with
// its command and answered by answer_permission.
func TestDriveClaudeOverStdio(t *testing.T) {
	exe := agentstub.CLI(t, agentstub.Claude)
	stub := agentstub.Start(t)
	r, tm, _, _ := firstHourServer(t, 2000, "bash --noprofile --norc")
	l := stub.Launch(t, agentstub.Claude, exe)
	p := tm.MustTmux(append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:"}, l.CommandArgs()...)...)
	panePID, err := strconv.Atoi(tm.MustTmux("display-message", "-p", "-t", p, "#{pane_pid}"))
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.Reap(t, panePID)

	tmuxtest.WaitFor(t, 60*time.Second, "claude at its prompt", func() bool {
		_, res := r.call("get_pane_info", map[string]any{"pane_id": p})
		var info agentState
		return json.Unmarshal(res.Structured, &info) == nil && info.Agent != nil &&
			info.Agent.Name == "claude" && info.Agent.State == "waiting_for_input"
	})
	if _, res := r.call("send_keys", map[string]any{"pane_id": p, "keys": "hello"}); !res.IsError ||
		!strings.Contains(res.text(), "runs claude, an agent CLI") {
		t.Fatalf("send_keys without allow_agent: %s, want refused", res.text())
	}

	prompt := "first line\nsecond line"
	_, res := r.call("submit_prompt", map[string]any{"pane_id": p, "text": prompt, "allow_agent": true})
	decodeAgent(t, "submit_prompt", res)
	if got := stub.WaitPrompt(t, 1, 30*time.Second); got != prompt {
		t.Fatalf("the model got %q, want %q", got, prompt)
	}
	_, res = r.call("wait_for_agent", map[string]any{"pane_id": p})
	if turn := decodeAgent(t, "wait_for_agent", res); turn.Agent.State != "waiting_for_input" ||
		!strings.Contains(turn.Answer, agentstub.DefaultText(prompt)) {
		t.Fatalf("wait_for_agent: %+v %q, want waiting_for_input and the reply", turn.Agent, turn.Answer)
	}

	marker := filepath.Join(t.TempDir(), "made")
	stub.Push(agentstub.Reply{Command: "touch " + marker})
	_, res = r.call("submit_prompt", map[string]any{"pane_id": p, "text": "make the file", "allow_agent": true})
	decodeAgent(t, "submit_prompt", res)
	_, res = r.call("wait_for_agent", map[string]any{"pane_id": p})
	if turn := decodeAgent(t, "wait_for_agent", res); turn.Agent.State != "asking_permission" ||
		!strings.Contains(turn.Agent.Question, "touch "+marker) {
		t.Fatalf("wait_for_agent: %+v, want asking_permission with the command", turn.Agent)
	}
	_, res = r.call("answer_permission", map[string]any{"pane_id": p, "answer": "yes"})
	decodeAgent(t, "answer_permission", res)
	tmuxtest.WaitFor(t, 30*time.Second, "the allowed command's file", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
}
