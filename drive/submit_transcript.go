package drive

import (
	"strings"

	"github.com/tmux-mcp/tmux-mcp/agent"
)

// inTranscript reports whether reading r of an agent CLI whose input
// was cleared by an Enter shows the prompt taken into its transcript:
// its last prompt line is not the one before the Enter (a new one, or the
// old one scrolled away) or shows the text's start (the same prompt
// again). For an agent whose prompts the table cannot read, the cleared
// input is all there is to go by.
func (s *Submission) inTranscript(r agent.Reading, before string) bool {
	if !agent.ShowsPrompts(s.Agent) || r.Prompt != before {
		return true
	}
	start := ""
	for _, l := range strings.Split(s.Text, "\n") {
		if start = strings.TrimSpace(l); start != "" {
			break
		}
	}
	if rs := []rune(start); len(rs) > 16 {
		start = string(rs[:16])
	}
	return start != "" && strings.Contains(r.Prompt, start)
}
