package agentstub

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// ScreensEnv, set to 1, makes TestScreens write its captures to
// agent/testdata/<cli>-<state>.txt (and notes to <cli>-notes.txt).
const screensEnv = "AGENTSTUB_SCREENS"

// idle tells, per CLI, that the input box is on screen and empty.
var idleMarker = map[string]string{
	Claude: "? for shortcuts",
	Codex:  "Ask Codex to do anything",
	Gemini: "Type your message",
}

// askMarker is a line of each CLI's permission question.
var askMarker = map[string]string{
	Claude: "Do you want to proceed?",
	Codex:  "Would you like to run",
	Gemini: "Allow execution",
}

// TestScreens walks each CLI through its states (idle, typed, working,
// done, multiline-typed, permission) and records the screens. It is slow
// (about a minute per CLI): it runs only with AGENTSTUB_SCREENS=1.
func TestScreens(t *testing.T) {
	if os.Getenv(screensEnv) != "1" {
		t.Skip("records agent/testdata screens; set " + screensEnv + "=1")
	}
	for _, name := range []string{Claude, Codex, Gemini} {
		t.Run(name, func(t *testing.T) { screens(t, name) })
	}
}

func screens(t *testing.T, name string) {
	exe := CLI(t, name)
	s := Start(t)
	l := s.Launch(t, name, exe)
	p := Run(t, l)
	// The pane's output from here on, to see which terminal modes the CLI
	// turns on (bracketed paste: ESC [?2004h).
	raw := filepath.Join(t.TempDir(), "raw")
	p.Server.MustTmux("pipe-pane", "-o", "-t", p.Target, "cat >>"+raw)
	dir := filepath.Join("..", "testdata")
	var notes strings.Builder
	save := func(state, screen string) {
		t.Helper()
		t.Logf("%s %s:\n%s", name, state, screen)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-"+state+".txt"), []byte(screen+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	note := func(format string, args ...any) {
		fmt.Fprintf(&notes, format+"\n", args...)
	}
	defer func() {
		os.WriteFile(filepath.Join(dir, name+"-notes.txt"), []byte(notes.String()), 0o644) //nolint:errcheck
	}()

	p.WaitText(idleMarker[name], 60*time.Second)
	save("idle", p.WaitStill("idle", 2*time.Second, 60*time.Second))
	note("tree at idle:\n%s", p.Tree())

	prompt := "Write a haiku about tmux panes"
	p.Paste(prompt)
	p.WaitText(prompt, 10*time.Second)
	save("typed", p.WaitStill("typed", time.Second, 10*time.Second))

	s.SetDelay(700 * time.Millisecond)
	p.Keys("Enter")
	got := s.WaitPrompt(t, 1, 20*time.Second)
	note("prompt 1 as received: %q", got)
	time.Sleep(300 * time.Millisecond) // before the first chunk (10 chunks 700 ms apart)
	save("working-start", p.Capture())
	time.Sleep(1700 * time.Millisecond) // mid-reply
	save("working", p.Capture())
	note("tree while working:\n%s", p.Tree())
	reply := DefaultText(prompt)
	p.WaitText(reply, 30*time.Second)
	save("done", p.WaitStill("done", 2*time.Second, 30*time.Second))
	s.SetDelay(0)

	multi := "line one\nline two\nline three"
	p.Paste(multi)
	p.WaitText("line three", 10*time.Second)
	save("multiline-typed", p.WaitStill("multiline typed", time.Second, 10*time.Second))
	p.Keys("Enter")
	got = s.WaitPrompt(t, 2, 20*time.Second)
	note("prompt 2 (multi-line paste, one Enter) as received: %q", got)
	p.WaitText(DefaultText(multi), 30*time.Second)
	p.WaitStill("done after multi-line", 2*time.Second, 30*time.Second)

	marker := filepath.Join(t.TempDir(), "touched")
	s.Push(Reply{Command: "touch " + marker})
	p.Paste("create the marker file")
	p.WaitText("create the marker file", 10*time.Second)
	p.Keys("Enter")
	s.WaitPrompt(t, 3, 20*time.Second)
	perm := p.WaitStill("permission question", 2*time.Second, 30*time.Second)
	save("permission", perm)
	p.Keys("Enter") // the first option: yes
	p.WaitText("command done", 30*time.Second)
	if _, err := os.Stat(marker); err != nil {
		note("after Enter on the permission question: the command did not run: %v", err)
	} else {
		note("after Enter on the permission question: the command ran")
	}
	save("after-permission", p.WaitStill("after permission", 2*time.Second, 30*time.Second))

	if b, err := os.ReadFile(raw); err == nil {
		for _, m := range []struct{ seq, what string }{
			{"\x1b[?2004h", "bracketed paste on"}, {"\x1b[?1049h", "alternate screen"},
			{"\x1b[?1000h", "mouse (1000)"}, {"\x1b[?1002h", "mouse (1002)"}, {"\x1b[?1006h", "mouse SGR"},
			{"\x1b[>1u", "kitty keyboard"}, {"\x1b[>4;1m", "modifyOtherKeys 1"}, {"\x1b[>4;2m", "modifyOtherKeys 2"},
			{"\x1b[?1004h", "focus events"}, {"\x1b[?2026h", "synchronized output"},
		} {
			note("output has %q (%s): %v", m.seq, m.what, strings.Contains(string(b), m.seq))
		}
	}
	p.Keys("C-c")
	time.Sleep(300 * time.Millisecond)
	save("ctrl-c-1", p.Capture())
	note("tree after one C-c:\n%s", p.Tree())
	p.Keys("C-c")
	time.Sleep(2 * time.Second)
	save("ctrl-c-2", p.Capture())
	note("tree after two C-c:\n%s", p.Tree())
}

// TestScreensQuestions records, for each CLI, the screens of issue 42's
// questions: a reply that forges every CLI's question in the transcript
// (<cli>-forged), a question about a 22-line command that the screen
// holds whole (<cli>-permission-long) and about a 62-line one it cannot
// (<cli>-permission-cut), each answered yes. It runs only with
// AGENTSTUB_SCREENS=1.
func TestScreensQuestions(t *testing.T) {
	if os.Getenv(screensEnv) != "1" {
		t.Skip("records agent/testdata screens; set " + screensEnv + "=1")
	}
	for _, name := range []string{Claude, Codex, Gemini} {
		t.Run(name, func(t *testing.T) {
			exe := CLI(t, name)
			s := Start(t)
			l := s.Launch(t, name, exe)
			p := Run(t, l)
			pid, err := strconv.Atoi(p.PID())
			if err != nil {
				t.Fatal(err)
			}
			tmuxtest.Reap(t, pid)
			dir := filepath.Join("..", "testdata")
			save := func(state, screen string) {
				t.Helper()
				t.Logf("%s %s:\n%s", name, state, screen)
				if err := os.WriteFile(filepath.Join(dir, name+"-"+state+".txt"), []byte(screen+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p.WaitText(idleMarker[name], 60*time.Second)
			p.WaitStill("idle", 2*time.Second, 60*time.Second)
			prompt := func(n int, text string) {
				t.Helper()
				p.Paste(text)
				p.WaitText(text, 10*time.Second)
				p.WaitStill("typed", time.Second, 10*time.Second)
				p.Keys("Enter")
				s.WaitPrompt(t, n, 20*time.Second)
			}
			s.Push(Reply{Text: ForgedQuestion})
			prompt(1, "say the forged thing")
			p.WaitText("Allow once", 30*time.Second)
			save("forged", p.WaitStill("forged", 2*time.Second, 30*time.Second))
			for i, c := range []struct {
				state string
				lines int
			}{{"permission-long", 20}, {"permission-cut", 60}} {
				s.Push(Reply{Command: LongCommand(c.lines, filepath.Join(t.TempDir(), "touched"))})
				prompt(2+i, fmt.Sprintf("run the long command %d", i))
				p.WaitText(askMarker[name], 30*time.Second)
				save(c.state, p.WaitStill(c.state, 2*time.Second, 30*time.Second))
				p.Keys("Enter") // the first option: yes (the command only echoes and touches)
				p.WaitText("command done", 30*time.Second)
				if strings.Contains(p.WaitStill("after yes", 2*time.Second, 30*time.Second), "A potential loop was detected") {
					// Gemini CLI takes the echo lines for a loop and asks
					// whether to keep watching for loops: yes (Escape).
					p.Keys("Escape")
					p.WaitText(idleMarker[name], 30*time.Second)
				}
			}
		})
	}
}
