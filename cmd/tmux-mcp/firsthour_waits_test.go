package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// Tests of an agent's first hour with waits (issue 18, items 1 and 2),
// through the built binary over stdio.

// waitOut is the part of wait_for_text's result these tests read.
type waitOut struct {
	Found             bool     `json:"found"`
	Outcome           string   `json:"outcome"`
	MatchedLines      []string `json:"matched_lines"`
	MatchedAtEntry    bool     `json:"matched_at_entry"`
	Since             string   `json:"since"`
	PrintedBeforeCall bool     `json:"printed_before_call"`
}

// replSession starts the binary over stdio on an isolated server whose
// pane runs a shell with a REPL's prompt, ">>> ", and returns the client
// and the pane.
func replSession(t *testing.T) (*client.Client, *tmuxtest.Server, string) {
	t.Helper()
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	pane := tm.MustTmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "env PS1='>>> ' /bin/sh")
	waitPaneText(t, tm, pane, "the prompt", func(s string) bool { return strings.HasSuffix(s, ">>>") })
	c, _, _ := startStdio(t, bin, binaryEnv(tm.Socket))
	t.Cleanup(func() { c.Close() })
	return c, tm, pane
}

// waitPaneText waits until ok accepts the pane's screen (trailing blanks
// of each line and blank lines at the end dropped).
func waitPaneText(t *testing.T, tm *tmuxtest.Server, pane, what string, ok func(string) bool) {
	t.Helper()
	tmuxtest.WaitFor(t, 10*time.Second, what, func() bool {
		out, _ := tm.Tmux("capture-pane", "-p", "-J", "-t", pane)
		lines := strings.Split(out, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " ")
		}
		return ok(strings.TrimRight(strings.Join(lines, "\n"), "\n"))
	})
}

// sendAnswered types line with send_keys and waits, outside tmux-mcp,
// until the pane shows want and the prompt after it: the answer is there
// before the agent's next call.
func sendAnswered(t *testing.T, c *client.Client, tm *tmuxtest.Server, pane, line, want string) {
	t.Helper()
	callTool(t, c, "send_keys", map[string]any{"pane_id": pane, "keys": line})
	waitPaneText(t, tm, pane, want, func(s string) bool { return strings.HasSuffix(s, want+"\n>>>") })
}

func waitFor(t *testing.T, c *client.Client, args map[string]any) waitOut {
	t.Helper()
	var r waitOut
	if err := json.Unmarshal(structured(t, callTool(t, c, "wait_for_text", args)), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFirstHourFastAnswer: send_keys of a command that answers at once,
// then wait_for_text for the answer. Before, the answer was already on
// the screen when the wait began, so it never matched: the wait timed
// out after its whole timeout with matched_at_entry. Now a wait sees what
// the pane printed since the agent's last send, and says so; text from
// before the send never matches, nor does the send's own echo; since=call
// still waits for new output only; send_keys can wait in the same call.
func TestFirstHourFastAnswer(t *testing.T) {
	c, tm, pane := replSession(t)
	sendAnswered(t, c, tm, pane, `printf 'ANS_%s\n' 41`, "ANS_41")
	sendAnswered(t, c, tm, pane, `printf 'ANS_%s\n' 42`, "ANS_42")
	tests := []struct {
		name    string
		args    map[string]any
		want    waitOut
		outcome string
	}{
		{"text from before the send", map[string]any{"patterns": []any{"ANS_41"}, "timeout": 1},
			waitOut{Outcome: "timeout", MatchedAtEntry: true, Since: "last_send"}, ""},
		{"since the call", map[string]any{"patterns": []any{"ANS_42"}, "timeout": 1, "since": "call"},
			waitOut{Outcome: "timeout", MatchedAtEntry: true, Since: "call"}, ""},
		// The echo of the keys holds "ANS_" too: it is the send's own.
		{"the answer, printed before the call", map[string]any{"patterns": []any{"ans_"}, "timeout": 5},
			waitOut{Found: true, Outcome: "matched", MatchedLines: []string{"ANS_42"}, Since: "last_send", PrintedBeforeCall: true}, ""},
	}
	for _, tt := range tests {
		tt.args["pane_id"] = pane
		got := waitFor(t, c, tt.args)
		if got.Found != tt.want.Found || got.Outcome != tt.want.Outcome || !slices.Equal(got.MatchedLines, tt.want.MatchedLines) ||
			got.MatchedAtEntry != tt.want.MatchedAtEntry || got.Since != tt.want.Since || got.PrintedBeforeCall != tt.want.PrintedBeforeCall {
			t.Errorf("%s: wait_for_text(%v) = %+v, want %+v", tt.name, tt.args, got, tt.want)
		}
	}

	var sent struct {
		Result string   `json:"result"`
		Wait   *waitOut `json:"wait"`
	}
	res := callTool(t, c, "send_keys", map[string]any{"pane_id": pane, "keys": `printf 'ANS_%s\n' 43`, "wait_for": "43", "timeout": 10})
	if err := json.Unmarshal(structured(t, res), &sent); err != nil {
		t.Fatal(err)
	}
	if sent.Wait == nil || !sent.Wait.Found || !slices.Equal(sent.Wait.MatchedLines, []string{"ANS_43"}) || sent.Wait.Since != "last_send" {
		t.Errorf("send_keys(wait_for 43) = %+v (wait %+v), want the answer ANS_43 matched, not the echo", sent, sent.Wait)
	}
}

// TestFirstHourPromptEndingInBlank: prompts end in a blank, and captured
// lines lose their trailing blanks, so the pattern ">>> " never matched
// the prompt ">>> " (">>>" did). A pattern's trailing blank now matches
// the end of a line, literal or regex.
func TestFirstHourPromptEndingInBlank(t *testing.T) {
	c, _, pane := replSession(t)
	for _, tt := range []struct {
		pattern string
		regex   bool
	}{{">>> ", false}, {`^>>> $`, true}} {
		// The prompt comes back a second after the send, during the wait.
		callTool(t, c, "send_keys", map[string]any{"pane_id": pane, "keys": "sleep 1"})
		got := waitFor(t, c, map[string]any{"pane_id": pane, "patterns": []any{tt.pattern}, "regex": tt.regex, "timeout": 10})
		if !got.Found || !slices.Equal(got.MatchedLines, []string{">>>"}) {
			t.Errorf("wait_for_text(%q, regex %v) after send_keys(sleep 1) = %+v, want the prompt matched", tt.pattern, tt.regex, got)
		}
	}
}
