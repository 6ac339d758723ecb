package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/proc"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
)

// Linux wait status encodings.
func exitedWith(code int) *syscall.WaitStatus {
	ws := syscall.WaitStatus(code << 8)
	return &ws
}

func signaledBy(sig syscall.Signal) *syscall.WaitStatus {
	ws := syscall.WaitStatus(sig)
	return &ws
}

func connErr(errno syscall.Errno) error {
	return fmt.Errorf("probe socket /x: %w", &os.SyscallError{Syscall: "connect", Err: errno})
}

func TestClassifyDeath(t *testing.T) {
	tests := []struct {
		name       string
		e          DeathEvidence
		want       Cause
		wantDetail string // a fragment of the detail
	}{
		{"kill requested wins", DeathEvidence{PID: 7, KillRequested: true, Wait: signaledBy(syscall.SIGKILL)},
			CauseKillServer, "killed on request"},
		{"socket deleted, server alive", DeathEvidence{PID: 7, PIDAlive: true, ConnectErr: connErr(syscall.ENOENT)},
			CauseSocketDeleted, "socket file is gone"},
		{"socket missing by stderr, server alive", DeathEvidence{PID: 7, PIDAlive: true, StderrClass: tmux.ErrSocketMissing},
			CauseSocketDeleted, "SIGUSR1"},
		{"socket replaced, server alive", DeathEvidence{PID: 7, PIDAlive: true, ConnectErr: connErr(syscall.ECONNREFUSED)},
			CauseSocketDeleted, "replaced"},
		{"hung: timeouts", DeathEvidence{PID: 7, PIDAlive: true, ProbeTimeouts: 3, FDRatio: 0.2},
			CauseHung, "not answering"},
		{"hung: backlog full", DeathEvidence{PID: 7, PIDAlive: true, ConnectErr: connErr(syscall.EAGAIN)},
			CauseHung, "not answering"},
		{"hung: connect timeout", DeathEvidence{PID: 7, PIDAlive: true, ConnectErr: fmt.Errorf("probe: %w", context.DeadlineExceeded)},
			CauseHung, "not answering"},
		{"fd livelock", DeathEvidence{PID: 7, PIDAlive: true, ProbeTimeouts: 1, FDRatio: 0.9},
			CauseFDLivelock, "90% of its file descriptors"},
		{"fd livelock at the threshold", DeathEvidence{PID: 7, PIDAlive: true, StderrClass: tmux.ErrTimeout, FDRatio: 0.85},
			CauseFDLivelock, "livelock"},
		{"exiting limbo", DeathEvidence{PID: 7, PIDAlive: true, StderrClass: tmux.ErrServerExited},
			CauseHung, "stuck exiting"},
		{"alive and accepting is no death", DeathEvidence{PID: 7, PIDAlive: true, ControlExited: true},
			"", "alive"},
		{"permission", DeathEvidence{StderrClass: tmux.ErrPermission},
			CausePermission, "owner or mode"},
		{"permission by connect", DeathEvidence{ConnectErr: connErr(syscall.EACCES)},
			CausePermission, "owner or mode"},
		{"version skew", DeathEvidence{PID: 7, PIDAlive: true, StderrClass: tmux.ErrVersionMismatch},
			CauseVersionSkew, "version"},
		{"SIGSEGV", DeathEvidence{PID: 1234, Wait: signaledBy(syscall.SIGSEGV)},
			CauseCrashed, "server PID 1234 crashed with signal 11 (segmentation fault)"},
		{"SIGABRT", DeathEvidence{PID: 1234, Wait: signaledBy(syscall.SIGABRT)}, CauseCrashed, "signal 6"},
		{"SIGBUS", DeathEvidence{Wait: signaledBy(syscall.SIGBUS)}, CauseCrashed, "bus error"},
		{"SIGILL", DeathEvidence{Wait: signaledBy(syscall.SIGILL)}, CauseCrashed, "signal 4"},
		{"SIGFPE", DeathEvidence{Wait: signaledBy(syscall.SIGFPE)}, CauseCrashed, "signal 8"},
		{"SIGKILL", DeathEvidence{PID: 1234, Wait: signaledBy(syscall.SIGKILL)},
			CauseKilled, "server PID 1234 ended by signal 9 (killed)"},
		{"SIGTERM", DeathEvidence{Wait: signaledBy(syscall.SIGTERM)}, CauseKilled, "signal 15 (terminated)"},
		{"SIGINT", DeathEvidence{Wait: signaledBy(syscall.SIGINT)}, CauseKilled, "signal 2"},
		{"SIGHUP", DeathEvidence{Wait: signaledBy(syscall.SIGHUP)}, CauseKilled, "signal 1"},
		{"exit 1: fatal", DeathEvidence{PID: 9, Wait: exitedWith(1)}, CauseCrashed, "status 1"},
		{"exit 0: normal", DeathEvidence{PID: 9, Wait: exitedWith(0)}, CauseLastSession, "exited normally"},
		{"exit 3: odd", DeathEvidence{PID: 9, Wait: exitedWith(3)}, CauseUnknown, "status 3"},
		{"wait status beats a stale PIDAlive", DeathEvidence{Wait: signaledBy(syscall.SIGKILL), PIDAlive: true, ConnectErr: connErr(syscall.ECONNREFUSED)},
			CauseKilled, "signal 9"},
		{"control: last session", DeathEvidence{PID: 9, ControlExited: true, SessionsChangedBeforeExit: true},
			CauseLastSession, "last session"},
		{"control: exited unexpectedly", DeathEvidence{PID: 9, ControlExited: true, ControlExitReason: "server exited unexpectedly"},
			CauseKilled, "look the same"},
		{"control: other reason", DeathEvidence{PID: 9, ControlExited: true, ControlExitReason: "too far behind"},
			CauseKilled, `"too far behind"`},
		{"control: EOF without sessions-changed", DeathEvidence{PID: 9, ControlExited: true, ConnectErr: connErr(syscall.ECONNREFUSED)},
			CauseUnknown, "stale"},
		{"gone, stale socket", DeathEvidence{PID: 9, ConnectErr: connErr(syscall.ECONNREFUSED)},
			CauseUnknown, "server PID 9 is gone and its socket is stale"},
		{"gone, socket missing", DeathEvidence{StderrClass: tmux.ErrSocketMissing},
			CauseUnknown, "server is gone and its socket file is missing"},
		{"nothing known", DeathEvidence{}, CauseUnknown, "no exit status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, detail := ClassifyDeath(tt.e)
			if got != tt.want || !strings.Contains(detail, tt.wantDetail) {
				t.Errorf("ClassifyDeath() = %q, %q; want %q with detail containing %q", got, detail, tt.want, tt.wantDetail)
			}
		})
	}
}

func TestWaitStatusOf(t *testing.T) {
	if ws := waitStatusOf(nil); ws == nil || !ws.Exited() || ws.ExitStatus() != 0 {
		t.Errorf("waitStatusOf(nil) = %v, want exited 0", ws)
	}
	if ws := waitStatusOf(errors.New("not a wait error")); ws != nil {
		t.Errorf("waitStatusOf(other) = %v, want nil", ws)
	}
	err := exec.Command("sh", "-c", "kill -SEGV $$").Run()
	ws := waitStatusOf(fmt.Errorf("server: %w", err))
	if ws == nil || !ws.Signaled() || ws.Signal() != syscall.SIGSEGV {
		t.Fatalf("waitStatusOf(%v) = %v, want signaled by SIGSEGV", err, ws)
	}
	if c, _ := ClassifyDeath(DeathEvidence{Wait: ws}); c != CauseCrashed {
		t.Errorf("ClassifyDeath(SIGSEGV from a real process) = %q, want %q", c, CauseCrashed)
	}
}

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
		e := DeathEvidence{PID: pid, PIDAlive: proc.PIDAlive(pid, start), ConnectErr: err}
		if got, detail := ClassifyDeath(e); got != CauseSocketDeleted {
			t.Errorf("ClassifyDeath(%+v) = %q (%s), want %q", e, got, detail, CauseSocketDeleted)
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
		e := DeathEvidence{PID: pid, ConnectErr: err}
		if got, detail := ClassifyDeath(e); got != CauseUnknown || !strings.Contains(detail, "stale") {
			t.Errorf("ClassifyDeath(%+v) = %q (%s), want %q about a stale socket", e, got, detail, CauseUnknown)
		}
	})
}
