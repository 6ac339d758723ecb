package drive

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/agent"
)

// TestSubmittedOnceInTranscript: an Enter that cleared an agent CLI's
// input has submitted the prompt once the transcript shows it. Beside
// busy loops Gemini CLI cleared its input a second before it drew the
// prompt, and a wait_for_agent right after submit_prompt read the last
// turn's end there (issue 43, TestDriveAgentCLIs/gemini).
func TestSubmittedOnceInTranscript(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "agent", "testdata", "gemini-done.txt"))
	if err != nil {
		t.Fatal(err)
	}
	done := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	reply := slices.IndexFunc(done, func(l string) bool { return strings.HasPrefix(l, "✦ reply to: Write a haiku") })
	if reply < 0 {
		t.Fatal("no reply line in gemini-done")
	}
	rule := func(c string) string { return strings.Repeat(c, 120) }
	drawn := slices.Insert(slices.Clone(done), reply+1, rule("▄"), " > create the marker file", rule("▀"))
	for _, tc := range []struct {
		name   string
		screen []string
		text   string
		want   bool
	}{
		{"input cleared, transcript as before", done, "create the marker file", false},
		{"the prompt drawn", drawn, "create the marker file", true},
		{"the prompt drawn, several lines", drawn, "create the marker file\nnow", true},
		{"the same prompt again", done, "Write a haiku about tmux panes", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := agent.Read(agent.Name("gemini"), done).Prompt
			if before == "" {
				t.Fatal("gemini-done reads no prompt")
			}
			s := &Submission{Text: tc.text, Agent: agent.Name("gemini")}
			if got := s.inTranscript(agent.Read(agent.Name("gemini"), tc.screen), before); got != tc.want {
				t.Errorf("inTranscript = %t, want %t", got, tc.want)
			}
		})
	}
}
