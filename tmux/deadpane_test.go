package tmux_test

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// deadPaneOutputCrashes reports whether the server crashes when a pane
// dies (kept by remain-on-exit) while a control client that receives
// output still has that pane's output queued (the DeadPaneOutputCrash
// row). It is deterministic: the output-receiving client's stdout is a
// pipe that nobody reads until the pane is dead, so tmux cannot write the
// pane's output to it and keeps it queued; a no-output control client
// (the command connection of c) keeps tmux reading the pane meanwhile (a
// server whose only clients are control clients that are behind stops
// reading the pane, and the pane would never finish). Then the pipe is
// read: tmux writes the queued output of the dead pane (3.2a crashes
// there), then the reply to a command sent meanwhile, which on every other
// version shows that the queued output was dealt with.
func deadPaneOutputCrashes(t *testing.T) bool {
	t.Helper()
	c, s := newClient(t, "control")
	pid := s.PID()
	run(t, c, "set-option", "-g", "remain-on-exit", "on")
	run(t, c, "new-session", "-d", "-s", "dp", "exec cat")

	cctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, tmuxtest.Binary(t), "-S", s.Socket, "-f", "/dev/null", "-C", "attach-session", "-t", "=dp")
	cmd.Env = tmuxtest.Env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck // our own child; may have exited
		cmd.Wait()         //nolint:errcheck // killed
	})
	client := strconv.Itoa(cmd.Process.Pid)
	tmuxtest.WaitFor(t, 10*time.Second, "the output-receiving control client to attach", func() bool {
		out, err := s.Tmux("list-clients", "-t", "=dp", "-F", "#{client_pid}")
		return err == nil && out == client
	})

	// Far more than the pipe and tmux's write buffer hold.
	pane := run(t, c, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=dp:",
		`head -c 1000000 /dev/zero | tr '\0' a; exit 0`)
	tmuxtest.WaitFor(t, 10*time.Second, "the printing pane to die", func() bool {
		out, err := s.Tmux("display-message", "-p", "-t", pane, "#{pane_dead}")
		return err == nil && out == "1"
	})
	// The reply comes after the queued output. stdin stays open until
	// then: a control client that ends its input has its queued output
	// discarded, and nothing would be written.
	if _, err := io.WriteString(stdin, "display-message -p dead-pane-mark\n"); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	r := bufio.NewReader(stdout)
	for {
		line, err := r.ReadString('\n')
		if line == "dead-pane-mark\n" {
			if !tmuxtest.Alive(pid) {
				t.Fatal("the command's reply came, but the server died")
			}
			return false
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the server to be gone (no reply to the command)", func() bool {
		return !tmuxtest.Alive(pid)
	})
	return true
}
