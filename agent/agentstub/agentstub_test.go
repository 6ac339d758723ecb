package agentstub

import (
	"strings"
	"testing"
	"time"
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

// drive starts the CLI name against a stub in a private tmux pane, pastes
// a prompt, presses Enter, and waits for the stub to get the prompt and
// for the reply to be on screen.
func drive(t *testing.T, name string) {
	t.Helper()
	exe := CLI(t, name)
	s := Start(t)
	p := Run(t, s.Launch(t, name, exe))
	p.WaitText(idleMarker[name], 60*time.Second)
	prompt := "Say hello to the " + name + " harness"
	p.Paste(prompt)
	p.WaitText(prompt, 10*time.Second)
	p.Keys("Enter")
	if got := s.WaitPrompt(t, 1, 30*time.Second); got != prompt {
		t.Fatalf("the stub got prompt %q, want %q", got, prompt)
	}
	p.WaitText(DefaultText(prompt), 30*time.Second)
	if got := s.Prompts(); len(got) != 1 {
		t.Errorf("prompts = %q, want just %q", got, prompt)
	}
}

func TestStubDrivesClaude(t *testing.T) { drive(t, Claude) }

func TestStubDrivesCodex(t *testing.T) { drive(t, Codex) }

func TestStubDrivesGemini(t *testing.T) { drive(t, Gemini) }
