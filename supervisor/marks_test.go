package supervisor

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/supervisor/marks"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// markingBash is bash without rc files, with the few lines that make it
// print OSC 133 marks: A and B around its prompt, C before a command runs
// (PS0), D with the status before the next prompt.
var markingBash = []string{
	"-e", `PS1=\[\e]133;A\a\]$ \[\e]133;B\a\]`,
	"-e", `PS0=\[\e]133;C\a\]`,
	"-e", `PROMPT_COMMAND=printf '\033]133;D;%s\007' "$?"`,
	"bash --norc --noprofile",
}

func TestPaneMarks(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{})
	srv := mustServer(t, sup)
	args := append([]string{"new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "m", "-x", "80", "-y", "24"}, markingBash...)
	pane := tmux.PaneID(mustDo(t, srv, args...))
	if noWatchers(t, srv) {
		_, err := srv.PaneMarks(testCtx(t), pane)
		if !errors.Is(err, capture.ErrNotWatched) {
			t.Fatalf("PaneMarks on a tmux without watchers: %v, want ErrNotWatched", err)
		}
		t.Skip("no watcher on this tmux (3.2a): marks are read from watchers only")
	}
	// The watcher begins with the first call: the first prompt may come
	// before it; a command and the prompt after it are seen whole.
	if _, err := srv.PaneMarks(testCtx(t), pane); err != nil {
		t.Fatal(err)
	}
	ended := func(n uint64) marks.State {
		t.Helper()
		var st marks.State
		tmuxtest.WaitFor(t, 10*time.Second, fmt.Sprintf("command %d to end, at a prompt", n), func() bool {
			m, err := srv.PaneMarks(testCtx(t), pane)
			if err != nil {
				t.Fatal(err)
			}
			st = m.State
			return st.Ended >= n && st.AtPrompt
		})
		return st
	}
	// Typed once: a shell reads what was typed before its prompt too.
	ts.MustTmux("send-keys", "-t", string(pane), "-l", ":")
	ts.MustTmux("send-keys", "-t", string(pane), "Enter")
	base := ended(1).Ended
	for i, status := range []int{0, 7, 255, 1, 0} {
		ts.MustTmux("send-keys", "-t", string(pane), "-l", fmt.Sprintf("(exit %d)", status))
		ts.MustTmux("send-keys", "-t", string(pane), "Enter")
		st := ended(base + uint64(i) + 1)
		if got, want := st.Last.Status, status; got != want {
			t.Errorf("(exit %d): status %d, want %d", status, got, want)
		}
		if st.Running || st.Unsure || st.Last.End.Before(st.Last.Start) {
			t.Errorf("(exit %d): state %+v", status, st)
		}
	}
	cmds := srv.fresh.Commands(pane)
	var got []int
	for _, c := range cmds[len(cmds)-5:] {
		got = append(got, c.Status)
	}
	if want := []int{0, 7, 255, 1, 0}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the last five commands' statuses = %v, want %v", got, want)
	}
	// A command that runs is seen running.
	ts.MustTmux("send-keys", "-t", string(pane), "-l", "read line")
	ts.MustTmux("send-keys", "-t", string(pane), "Enter")
	tmuxtest.WaitFor(t, 10*time.Second, "read to run", func() bool {
		m, err := srv.PaneMarks(testCtx(t), pane)
		return err == nil && m.State.Running && !m.State.AtPrompt
	})
	ts.MustTmux("send-keys", "-t", string(pane), "Enter")
	if st := ended(base + 6); st.Last.Status != 0 {
		t.Errorf("read: status %d, want 0", st.Last.Status)
	}
	// A shell that prints no marks is not marked.
	// (The session's environment holds the marking lines: the pane's own
	// overrides them.)
	plain := tmux.PaneID(mustDo(t, srv, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", string(pane),
		"-e", "PS1=$ ", "-e", "PS0=", "-e", "PROMPT_COMMAND=", "bash --norc --noprofile"))
	ts.MustTmux("send-keys", "-t", string(plain), "-l", "true")
	ts.MustTmux("send-keys", "-t", string(plain), "Enter")
	tmuxtest.WaitFor(t, 10*time.Second, "the plain shell's output", func() bool {
		m, err := srv.PaneMarks(testCtx(t), plain)
		if err != nil {
			t.Fatal(err)
		}
		if m.State.Marked {
			t.Fatalf("a shell that prints no marks: %+v", m.State)
		}
		return m.Known
	})
}
