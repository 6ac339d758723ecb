package tmux

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestStartedServerLeavesTheSession: a server StartServer starts leads a
// session and a process group of its own, so that nothing that ends the
// starter's session (an ssh connection's end, a kill of its session or
// process group) reaches it, and it is still the starter's child: its
// death by a signal is seen at once, with the signal.
func TestStartedServerLeavesTheSession(t *testing.T) {
	ts := tmuxtest.New(t)
	e := &Exec{Binary: tmuxtest.Binary(t), Socket: Socket{Path: ts.Socket}, Config: "/dev/null"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := e.StartServer(ctx, StartOptions{})
	if err != nil {
		t.Fatalf("StartServer: %v", err)
	}
	ts.Track(s.PID)
	s.Release()
	mine, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	sid, err := unix.Getsid(s.PID)
	if err != nil {
		t.Fatal(err)
	}
	pgid, err := unix.Getpgid(s.PID)
	if err != nil {
		t.Fatal(err)
	}
	if sid != s.PID || sid == mine || pgid != s.PID {
		t.Errorf("the server (pid %d) is in session %d, process group %d; this process's session is %d: want a session and group of its own",
			s.PID, sid, pgid, mine)
	}
	s.Kill()
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server's death was not seen")
	}
	var ee *exec.ExitError
	if !errors.As(s.Err(), &ee) {
		t.Fatalf("exit: %v", s.Err())
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("exit %v, want killed by SIGKILL", s.Err())
	}
}
