package supervisor

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestProbeSocket(t *testing.T) {
	ctx := context.Background()
	const timeout = 2 * time.Second

	t.Run("live", func(t *testing.T) {
		s := tmuxtest.New(t)
		s.Start("x")
		if err := proc.ProbeSocket(ctx, s.Socket, timeout); err != nil {
			t.Errorf("proc.ProbeSocket(live) = %v, want nil", err)
		}
	})

	t.Run("stopped server still accepts", func(t *testing.T) {
		s := tmuxtest.New(t)
		pid := s.Start("x")
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		defer syscall.Kill(pid, syscall.SIGCONT) //nolint:errcheck
		if err := proc.ProbeSocket(ctx, s.Socket, timeout); err != nil {
			t.Errorf("proc.ProbeSocket(stopped) = %v, want nil (connect lands in the backlog)", err)
		}
	})

	t.Run("deleted socket, then SIGUSR1", func(t *testing.T) {
		s := tmuxtest.New(t)
		pid := s.Start("x")
		start, err := proc.StartTime(pid)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(s.Socket); err != nil {
			t.Fatal(err)
		}
		err = proc.ProbeSocket(ctx, s.Socket, timeout)
		if !errors.Is(err, syscall.ENOENT) {
			t.Fatalf("proc.ProbeSocket(deleted) = %v, want ENOENT", err)
		}
		e := death.Evidence{PID: pid, PIDAlive: proc.PIDAlive(pid, start), ConnectErr: err}
		if got, detail := death.Classify(e); got != death.CauseSocketDeleted {
			t.Errorf("death.Classify(%+v) = %q (%s), want %q", e, got, detail, death.CauseSocketDeleted)
		}
		// The recovery the policy chooses: SIGUSR1 to the live server.
		if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		tmuxtest.WaitFor(t, 5*time.Second, "socket to come back", func() bool {
			return proc.ProbeSocket(ctx, s.Socket, timeout) == nil
		})
		if out := s.MustTmux("list-sessions", "-F", "#{session_name}"); out != "x" {
			t.Errorf("after SIGUSR1 list-sessions = %q, want %q", out, "x")
		}
	})

	t.Run("stale socket after kill -9", func(t *testing.T) {
		s := tmuxtest.New(t)
		pid := s.Start("x")
		start, err := proc.StartTime(pid)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		tmuxtest.WaitFor(t, 5*time.Second, "server to die", func() bool { return !proc.PIDAlive(pid, start) })
		// The listening socket may outlive the server by a moment (seen
		// once in 4,000 runs beside eight busy loops): a process the
		// server forked holds it until it closes its descriptors.
		tmuxtest.WaitFor(t, 5*time.Second, "the stale socket to refuse", func() bool {
			err = proc.ProbeSocket(ctx, s.Socket, timeout)
			return errors.Is(err, syscall.ECONNREFUSED)
		})
		e := death.Evidence{PID: pid, ConnectErr: err}
		if got, detail := death.Classify(e); got != death.CauseUnknown || !strings.Contains(detail, "stale") {
			t.Errorf("death.Classify(%+v) = %q (%s), want %q about a stale socket", e, got, detail, death.CauseUnknown)
		}
	})
}
