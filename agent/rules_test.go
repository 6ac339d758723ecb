package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// screen reads a captured screen of testdata (the real program's, see
// agentstub/NOTES.md for the versions).
func screen(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// TestRules: each row of the table reads the screens captured from its
// program as the test that captured them knew them to be.
func TestRules(t *testing.T) {
	type want struct {
		screen   string
		state    State
		input    string // "-" when no input area is expected
		question []string
		answer   string // a fragment of Answer
	}
	rows := map[Name][]want{
		"claude": {
			{screen: "claude-idle", state: WaitingForInput, input: ""},
			{screen: "claude-typed", state: WaitingForInput, input: "Write a haiku about tmux panes"},
			{screen: "claude-multiline-typed", state: WaitingForInput, input: "line one"},
			{screen: "claude-working-start", state: Working, input: ""},
			{screen: "claude-working", state: Working, input: ""},
			{screen: "claude-done", state: WaitingForInput, input: "", answer: "reply to: Write a haiku about tmux panes"},
			{screen: "claude-permission", state: AskingPermission, input: "-",
				question: []string{"Bash command", "touch /tmp/", "Do you want to proceed?", "1. Yes", "3. No"}},
			// Issue 42: a reply that prints every CLI's question is transcript.
			{screen: "claude-forged", state: WaitingForInput, input: "", answer: "Do you want to proceed?"},
			{screen: "claude-permission-long", state: AskingPermission, input: "-",
				question: []string{"Bash command", "echo FIRST-LINE-OF-THE-COMMAND-", "echo step-10", "touched", "Do you want to proceed?", "3. No"}},
			{screen: "claude-permission-cut", state: AskingPermission, input: "-",
				question: []string{"[the question starts above the screen", "echo step-60", "Do you want to proceed?", "3. No"}},
		},
		"codex": {
			{screen: "codex-idle", state: WaitingForInput, input: "Ask Codex to do anything"},
			{screen: "codex-typed", state: WaitingForInput, input: "Write a haiku about tmux panes"},
			{screen: "codex-multiline-typed", state: WaitingForInput, input: "line one"},
			{screen: "codex-working-start", state: Working, input: "Ask Codex to do anything"},
			{screen: "codex-working", state: Working, input: "Ask Codex to do anything"},
			{screen: "codex-done", state: WaitingForInput, input: "Ask Codex to do anything", answer: "reply to: Write a haiku about tmux panes"},
			{screen: "codex-permission", state: AskingPermission,
				question: []string{"Would you like to run the following command?", "$ touch /tmp/", "1. Yes, proceed (y)", "3. No, and tell Codex"}},
			{screen: "codex-after-permission", state: WaitingForInput, input: "Ask Codex to do anything", answer: "command done"},
			{screen: "codex-forged", state: WaitingForInput, input: "Ask Codex to do anything", answer: "Would you like to run"},
			{screen: "codex-permission-long", state: AskingPermission,
				question: []string{"Would you like to run the following command?", "$ echo FIRST-LINE-OF-THE-COMMAND-", "echo step-10", "touched", "1. Yes, proceed (y)"}},
			{screen: "codex-permission-cut", state: AskingPermission,
				question: []string{"$ echo FIRST-LINE-OF-THE-COMMAND-", "[… 80 lines]", "1. Yes, proceed (y)"}},
		},
		"gemini": {
			{screen: "gemini-idle", state: WaitingForInput, input: "Type your message or @path/to/file"},
			{screen: "gemini-typed", state: WaitingForInput, input: "Write a haiku about tmux panes"},
			{screen: "gemini-working-start", state: Working, input: "Type your message or @path/to/file"},
			{screen: "gemini-working", state: Working, input: "Type your message or @path/to/file"},
			{screen: "gemini-multiline-typed", state: WaitingForInput, input: "line one"},
			{screen: "gemini-done", state: WaitingForInput, input: "Type your message or @path/to/file", answer: "reply to: Write a haiku about tmux panes"},
			{screen: "gemini-permission", state: AskingPermission,
				question: []string{"? Shell  touch /tmp/", "Allow execution of [Shell]?", "1. Allow once", "3. No, suggest changes (esc)"}},
			{screen: "gemini-forged", state: WaitingForInput, input: "Type your message or @path/to/file", answer: "Allow execution of [Shell]?"},
			{screen: "gemini-permission-long", state: AskingPermission,
				question: []string{"? Shell  Run a shell command", "echo FIRST-LINE-OF-THE-COMMAND-", "echo step-10", "touched", "Allow execution of [Shell]?", "3. No"}},
			{screen: "gemini-permission-cut", state: AskingPermission,
				question: []string{"first 36 lines hidden", "echo step-60", "Allow execution of [Shell]?", "3. No"}},
		},
	}
	for _, name := range Names() {
		t.Run(string(name), func(t *testing.T) {
			ws, ok := rows[name]
			if !ok {
				t.Skipf("no screens of %s captured (no offline model stub for it yet): it reads unknown", name)
			}
			for _, w := range ws {
				if _, err := os.Stat(filepath.Join("testdata", w.screen+".txt")); err != nil {
					t.Errorf("%s: %v", w.screen, err)
					continue
				}
				got := Read(name, screen(t, w.screen))
				if got.State != w.state {
					t.Errorf("%s: state %s, want %s", w.screen, got.State, w.state)
				}
				switch {
				case w.input == "-" && got.InputKnown && w.state != AskingPermission:
					t.Errorf("%s: input %q, want none", w.screen, got.Input)
				case w.input != "-" && w.state != AskingPermission && (!got.InputKnown || got.Input != w.input):
					t.Errorf("%s: input %q (known %v), want %q", w.screen, got.Input, got.InputKnown, w.input)
				}
				for _, q := range w.question {
					if !strings.Contains(got.Question, q) {
						t.Errorf("%s: question %q lacks %q", w.screen, got.Question, q)
					}
				}
				if w.state != AskingPermission && got.Question != "" {
					t.Errorf("%s: question %q, want none", w.screen, got.Question)
				}
				if !strings.Contains(got.Answer, w.answer) {
					t.Errorf("%s: answer %q lacks %q", w.screen, got.Answer, w.answer)
				}
			}
		})
	}
	// Just submitted: the prompt is in the transcript and nothing follows
	// it yet (the agent has not drawn its spinner: a loaded machine).
	rule := strings.Repeat("─", 40)
	for name, s := range map[Name][]string{
		"claude": {"❯ Write a haiku", "  in two lines", "", rule, "❯ ", rule, "  ⏸ manual mode on · ? for shortcuts"},
		"codex":  {"› Write a haiku", "", "› Ask Codex to do anything", "", "  gpt-5-codex default · /tmp"},
		"gemini": {"▄▄▄▄▄▄▄▄▄▄▄▄", " > Write a haiku", "▀▀▀▀▀▀▀▀▀▀▀▀", "", "▄▄▄▄▄▄▄▄▄▄▄▄", " >   Type your message", "▀▀▀▀▀▀▀▀▀▀▀▀"},
	} {
		if got := Read(name, s); got.State != Working {
			t.Errorf("%s, a prompt just submitted: state %s, want working", name, got.State)
		}
	}
	for name, want := range map[Name]bool{"claude": true, "codex": true, "gemini": true, "aider": false, "nano": false} {
		if got := HasScreenRules(name); got != want {
			t.Errorf("HasScreenRules(%s) = %v, want %v", name, got, want)
		}
	}
	if got := Read("nano", []string{"esc to interrupt"}); got.State != Unknown {
		t.Errorf("Read(nano) = %+v, want unknown", got)
	}
	if got := Read("claude", []string{"$ ls", "a b"}); got.State != Unknown {
		t.Errorf("Read(claude, a shell's screen) = %+v, want unknown", got)
	}
}

// TestInputRows: the rows of a boxed input area, and whether the last is
// empty: what an Enter taken as a new line changes (gemini-enter-as-newline
// is the screen Gemini CLI showed when it took submit_prompt's Enter as a
// new line, in make ci's race run).
func TestInputRows(t *testing.T) {
	tests := []struct {
		name      Name
		screen    string
		rows      int
		lastBlank bool
	}{
		{"gemini", "gemini-typed", 1, false},
		{"gemini", "gemini-multiline-typed", 3, false},
		{"gemini", "gemini-enter-as-newline", 4, true},
		{"claude", "claude-multiline-typed", 3, false},
		{"codex", "codex-multiline-typed", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.screen, func(t *testing.T) {
			r := Read(tt.name, screen(t, tt.screen))
			if got, want := [2]any{r.InputRows, r.InputLastBlank}, [2]any{tt.rows, tt.lastBlank}; got != want {
				t.Errorf("rows, last blank: got %v, want %v (input %q)", got, want, r.Input)
			}
		})
	}
}

// TestQuestionBounds: a question in place of the input area is read from
// its first line wherever its text repeats the question's own words (a
// command may), and one longer than maxQuestionLines keeps its start and
// its options and says how much it left out.
func TestQuestionBounds(t *testing.T) {
	// A command line that reads like Codex's question, in Codex's dialog.
	codex := screen(t, "codex-permission-long")
	for i, l := range codex {
		if strings.Contains(l, "echo step-05") {
			codex[i] = "    Would you like to run the following command?"
		}
	}
	if q := Read("codex", codex).Question; !strings.Contains(q, "FIRST-LINE-OF-THE-COMMAND") {
		t.Errorf("codex question with its words in the command = %q, want it from its first line", q)
	}
	// A Claude dialog 100 command lines tall.
	claude := screen(t, "claude-permission-long")
	var tall []string
	for _, l := range claude {
		tall = append(tall, l)
		if strings.Contains(l, "FIRST-LINE-OF-THE-COMMAND") {
			for i := range 100 {
				tall = append(tall, fmt.Sprintf(" │   echo filler-%03d && \\", i))
			}
		}
	}
	r := Read("claude", tall)
	lines := strings.Split(r.Question, "\n")
	if r.State != AskingPermission || len(lines) > 65 {
		t.Fatalf("tall question: state %s, %d lines, want asking, at most 65", r.State, len(lines))
	}
	for _, want := range []string{"echo FIRST-LINE-OF-THE-COMMAND-", "lines of the question not shown]", "Do you want to proceed?", "3. No"} {
		if !strings.Contains(r.Question, want) {
			t.Errorf("tall question lacks %q:\n%s", want, r.Question)
		}
	}
}

// TestGeminiToolStepKeepsTheTurnOpen: between the model's call of a tool
// and the question about it, Gemini CLI draws the call's box with its
// status and may draw no working line; the turn has not ended until the
// status is final (issue 43: wait_for_agent took a turn for ended there,
// on a loaded machine, and answered waiting_for_input).
func TestGeminiToolStepKeepsTheTurnOpen(t *testing.T) {
	done := screen(t, "gemini-after-permission")
	for _, tc := range []struct {
		status string
		want   State
	}{
		{"✓", WaitingForInput},
		{"x", WaitingForInput},
		{"-", WaitingForInput},
		{"o", Working},
		{"⊷", Working},
		{"?", Working},
	} {
		t.Run(tc.status, func(t *testing.T) {
			lines := make([]string, len(done))
			n := 0
			for i, l := range done {
				if s, ok := strings.CutPrefix(l, "│ ✓  Shell"); ok {
					l = "│ " + tc.status + "  Shell" + s
					n++
				}
				lines[i] = l
			}
			if n != 1 {
				t.Fatalf("the screen has %d tool lines, want 1", n)
			}
			if got := Read("gemini", lines).State; got != tc.want {
				t.Errorf("Read with a tool call of status %s = %s, want %s", tc.status, got, tc.want)
			}
		})
	}
}
