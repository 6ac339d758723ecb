package agentstub

import (
	"strings"
	"testing"
)

func TestDefaultText(t *testing.T) {
	for in, want := range map[string]string{
		"hi":                        "reply to: hi",
		"line one\nline two":        "reply to: line one line two",
		strings.Repeat("abcde", 10): "reply to: " + strings.Repeat("abcde", 8),
	} {
		if got := DefaultText(in); got != want {
			t.Errorf("DefaultText(%q) = %q, want %q", in, got, want)
		}
	}
}

// The harness is proven end to end by tools' TestDriveAgentCLIs (every
// CLI, prompts, states, permission) and cmd/tmux-mcp's
// TestDriveClaudeOverStdio; TestScreens (AGENTSTUB_SCREENS=1) records
// the screens package agent's rules are tested on.
