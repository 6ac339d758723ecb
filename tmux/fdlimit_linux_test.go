package tmux

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmux-mcp/tmux-mcp/tmux/spawn"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// fdSoftLimit reads pid's RLIMIT_NOFILE soft limit with prlimit(2).
func fdSoftLimit(t *testing.T, pid int) uint64 {
	t.Helper()
	var lim unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &lim); err != nil {
		t.Fatalf("prlimit %d: %v", pid, err)
	}
	return lim.Cur
}

// TestStartServerFDLimit: a server StartServer starts has the fd limit it
// was asked for, and StartedServer says which.
func TestStartServerFDLimit(t *testing.T) {
	ts := tmuxtest.New(t)
	e := &Exec{Socket: Socket{Path: ts.Socket}, Config: "/dev/null"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := e.StartServer(ctx, StartOptions{FDLimit: 77})
	if err != nil {
		t.Fatalf("StartServer: %v", err)
	}
	ts.Track(s.PID)
	t.Cleanup(s.Release)
	if got := fdSoftLimit(t, s.PID); got != 77 || s.FDLimit != 77 {
		t.Errorf("server fd limit = %d, StartedServer.FDLimit = %d; want 77", got, s.FDLimit)
	}
}

// TestUlimitCommandStartsTmuxServer starts a tmux server the way macOS
// does (spawn.UlimitCommand: /bin/sh sets the limit, then execs tmux -D), here
// where its limit can be read back: the server runs with it, as the PID
// the shell had.
func TestUlimitCommandStartsTmuxServer(t *testing.T) {
	ts := tmuxtest.New(t)
	e := &Exec{Socket: Socket{Path: ts.Socket}, Config: "/dev/null"}
	argv := append(e.base(), "-D")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = tmuxtest.Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	spawn.UlimitCommand(cmd, 99)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %q: %v", cmd.Args, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck // may be gone
		<-exited
	})
	ts.Track(cmd.Process.Pid)
	tmuxtest.WaitFor(t, 5*time.Second, "the server to answer", func() bool {
		select {
		case err := <-exited:
			t.Fatalf("server exited at once: %v", err)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := e.Run(ctx, "list-sessions")
		return err == nil || errors.Is(err, ErrCommand) && !IsServerDown(err)
	})
	if pid := ts.PID(); pid != 0 && pid != cmd.Process.Pid {
		t.Errorf("server PID = %d, want the shell's %d", pid, cmd.Process.Pid)
	}
	if got := fdSoftLimit(t, cmd.Process.Pid); got != 99 {
		t.Errorf("server fd limit = %d, want 99", got)
	}
}
