package proc

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestAwaitsInput(t *testing.T) {
	ts := tmuxtest.New(t)
	pane := strings.TrimSpace(ts.MustTmux("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "w",
		"env PS1='$ ' bash --norc --noprofile"))
	pid, err := strconv.Atoi(strings.TrimSpace(ts.MustTmux("display-message", "-p", "-t", pane, "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	// The pane's process is sh -c, bash its child: the foreground is bash.
	shell := 0
	awaits := func() bool {
		fg, a, known := Foreground(pid)
		if !known {
			return false // the pane's process has no terminal yet, or its group's leader is gone
		}
		if a && shell != 0 && fg != shell {
			t.Fatalf("Foreground(%d) = %d, waiting; want the shell, %d", pid, fg, shell)
		}
		if a {
			shell = fg
		}
		return a
	}
	tmuxtest.WaitFor(t, 10*time.Second, "bash to wait at its prompt", awaits)
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(shell) + "/comm"); err != nil || strings.TrimSpace(string(b)) != "bash" {
		t.Errorf("the foreground at the prompt is %q (%v), want bash", b, err)
	}
	comm := func(pid int) string {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		return strings.TrimSpace(string(b))
	}
	// Right after Enter bash runs (reads the line, forks) before sleep
	// is in the foreground: a C-c then would reach bash, not sleep.
	ts.MustTmux("send-keys", "-t", pane, "-l", "sleep 30")
	ts.MustTmux("send-keys", "-t", pane, "Enter")
	tmuxtest.WaitFor(t, 10*time.Second, "sleep to be in the foreground, not waiting for input", func() bool {
		fg, a, _ := Foreground(pid)
		return fg != shell && comm(fg) == "sleep" && !a
	})
	ts.MustTmux("send-keys", "-t", pane, "C-c")
	tmuxtest.WaitFor(t, 10*time.Second, "bash's prompt again", awaits)
	// A builtin loop keeps the shell busy: running, not waiting.
	ts.MustTmux("send-keys", "-t", pane, "-l", "while :; do :; done")
	ts.MustTmux("send-keys", "-t", pane, "Enter")
	tmuxtest.WaitFor(t, 10*time.Second, "the loop to run in bash", func() bool {
		fg, a, _ := Foreground(pid)
		st, err := ReadProcStat(shell)
		return fg == shell && !a && err == nil && st.UTime > 0 && st.State == 'R'
	})
	ts.MustTmux("send-keys", "-t", pane, "C-c")
	tmuxtest.WaitFor(t, 10*time.Second, "bash's prompt after the loop", awaits)
	if _, _, known := Foreground(os.Getpid() + 1<<22); known {
		t.Error("a process that does not exist is known")
	}
}
