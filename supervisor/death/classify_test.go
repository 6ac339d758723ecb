package death

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
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
		e          Evidence
		want       Cause
		wantDetail string // a fragment of the detail
	}{
		{"kill requested wins", Evidence{PID: 7, KillRequested: true, Wait: signaledBy(syscall.SIGKILL)},
			CauseKillServer, "killed on request"},
		{"socket deleted, server alive", Evidence{PID: 7, PIDAlive: true, ConnectErr: connErr(syscall.ENOENT)},
			CauseSocketDeleted, "socket file is gone"},
		{"socket missing by stderr, server alive", Evidence{PID: 7, PIDAlive: true, StderrClass: tmux.ErrSocketMissing},
			CauseSocketDeleted, "SIGUSR1"},
		{"socket replaced, server alive", Evidence{PID: 7, PIDAlive: true, ConnectErr: connErr(syscall.ECONNREFUSED)},
			CauseSocketDeleted, "replaced"},
		{"hung: timeouts", Evidence{PID: 7, PIDAlive: true, ProbeTimeouts: 3, FDRatio: 0.2},
			CauseHung, "not answering"},
		{"hung: backlog full", Evidence{PID: 7, PIDAlive: true, ConnectErr: connErr(syscall.EAGAIN)},
			CauseHung, "not answering"},
		{"hung: connect timeout", Evidence{PID: 7, PIDAlive: true, ConnectErr: fmt.Errorf("probe: %w", context.DeadlineExceeded)},
			CauseHung, "not answering"},
		{"fd livelock", Evidence{PID: 7, PIDAlive: true, ProbeTimeouts: 1, FDRatio: 0.9},
			CauseFDLivelock, "90% of its file descriptors"},
		{"fd livelock at the threshold", Evidence{PID: 7, PIDAlive: true, StderrClass: tmux.ErrTimeout, FDRatio: 0.85},
			CauseFDLivelock, "livelock"},
		{"exiting limbo", Evidence{PID: 7, PIDAlive: true, StderrClass: tmux.ErrServerExited},
			CauseHung, "stuck exiting"},
		{"alive and accepting is no death", Evidence{PID: 7, PIDAlive: true, ControlExited: true},
			"", "alive"},
		{"permission", Evidence{StderrClass: tmux.ErrPermission},
			CausePermission, "owner or mode"},
		{"permission by connect", Evidence{ConnectErr: connErr(syscall.EACCES)},
			CausePermission, "owner or mode"},
		{"version skew", Evidence{PID: 7, PIDAlive: true, StderrClass: tmux.ErrVersionMismatch},
			CauseVersionSkew, "version"},
		{"SIGSEGV", Evidence{PID: 1234, Wait: signaledBy(syscall.SIGSEGV)},
			CauseCrashed, "server PID 1234 crashed with signal 11 (segmentation fault)"},
		{"SIGABRT", Evidence{PID: 1234, Wait: signaledBy(syscall.SIGABRT)}, CauseCrashed, "signal 6"},
		{"SIGBUS", Evidence{Wait: signaledBy(syscall.SIGBUS)}, CauseCrashed, "bus error"},
		{"SIGILL", Evidence{Wait: signaledBy(syscall.SIGILL)}, CauseCrashed, "signal 4"},
		{"SIGFPE", Evidence{Wait: signaledBy(syscall.SIGFPE)}, CauseCrashed, "signal 8"},
		{"SIGKILL", Evidence{PID: 1234, Wait: signaledBy(syscall.SIGKILL)},
			CauseKilled, "server PID 1234 ended by signal 9 (killed)"},
		{"SIGTERM", Evidence{Wait: signaledBy(syscall.SIGTERM)}, CauseKilled, "signal 15 (terminated)"},
		{"SIGINT", Evidence{Wait: signaledBy(syscall.SIGINT)}, CauseKilled, "signal 2"},
		{"SIGHUP", Evidence{Wait: signaledBy(syscall.SIGHUP)}, CauseKilled, "signal 1"},
		{"exit 1: fatal", Evidence{PID: 9, Wait: exitedWith(1)}, CauseCrashed, "status 1"},
		{"exit 0: normal", Evidence{PID: 9, Wait: exitedWith(0)}, CauseLastSession, "exited normally"},
		{"exit 3: odd", Evidence{PID: 9, Wait: exitedWith(3)}, CauseUnknown, "status 3"},
		{"wait status beats a stale PIDAlive", Evidence{Wait: signaledBy(syscall.SIGKILL), PIDAlive: true, ConnectErr: connErr(syscall.ECONNREFUSED)},
			CauseKilled, "signal 9"},
		{"control: last session", Evidence{PID: 9, ControlExited: true, SessionsChangedBeforeExit: true},
			CauseLastSession, "last session"},
		{"control: exited unexpectedly", Evidence{PID: 9, ControlExited: true, ControlExitReason: "server exited unexpectedly"},
			CauseKilled, "look the same"},
		{"control: other reason", Evidence{PID: 9, ControlExited: true, ControlExitReason: "too far behind"},
			CauseKilled, `"too far behind"`},
		{"control: EOF without sessions-changed", Evidence{PID: 9, ControlExited: true, ConnectErr: connErr(syscall.ECONNREFUSED)},
			CauseUnknown, "stale"},
		{"gone, stale socket", Evidence{PID: 9, ConnectErr: connErr(syscall.ECONNREFUSED)},
			CauseUnknown, "server PID 9 is gone and its socket is stale"},
		{"gone, socket missing", Evidence{StderrClass: tmux.ErrSocketMissing},
			CauseUnknown, "server is gone and its socket file is missing"},
		{"nothing known", Evidence{}, CauseUnknown, "no exit status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, detail := Classify(tt.e)
			if got != tt.want || !strings.Contains(detail, tt.wantDetail) {
				t.Errorf("Classify() = %q, %q; want %q with detail containing %q", got, detail, tt.want, tt.wantDetail)
			}
		})
	}
}

func TestWaitStatusOf(t *testing.T) {
	if ws := WaitStatusOf(nil); ws == nil || !ws.Exited() || ws.ExitStatus() != 0 {
		t.Errorf("WaitStatusOf(nil) = %v, want exited 0", ws)
	}
	if ws := WaitStatusOf(errors.New("not a wait error")); ws != nil {
		t.Errorf("WaitStatusOf(other) = %v, want nil", ws)
	}
	err := exec.Command("sh", "-c", "kill -SEGV $$").Run()
	ws := WaitStatusOf(fmt.Errorf("server: %w", err))
	if ws == nil || !ws.Signaled() || ws.Signal() != syscall.SIGSEGV {
		t.Fatalf("WaitStatusOf(%v) = %v, want signaled by SIGSEGV", err, ws)
	}
	if c, _ := Classify(Evidence{Wait: ws}); c != CauseCrashed {
		t.Errorf("Classify(SIGSEGV from a real process) = %q, want %q", c, CauseCrashed)
	}
}
