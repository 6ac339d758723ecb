package death

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Evidence is what was seen of a server that stopped answering: live
// by the supervisor's monitor, or after the fact by `tmux-mcp diagnose`.
// Every field is optional; Classify uses what is there.
type Evidence struct {
	PID int // the server's PID, if known

	// Wait is the exited server's wait status: from tmux -D when tmux-mcp
	// started it (WaitStatusOf), or read from its zombie (proc.ZombieStatus);
	// nil otherwise.
	Wait *syscall.WaitStatus

	// PIDAlive: the server process still exists (proc.PIDAlive).
	PIDAlive bool
	// ConnectErr is the socket probe's result (proc.ProbeSocket): nil when
	// something listens, else wrapping ENOENT, ECONNREFUSED, EAGAIN (Linux:
	// accept backlog full), EACCES, or a timeout.
	ConnectErr error

	// ControlExited: the control connection ended (%exit or EOF), with
	// ControlExitReason the %exit reason ("" when tmux gave none).
	ControlExited     bool
	ControlExitReason string
	// SessionsChangedBeforeExit: %sessions-changed arrived just before the
	// control connection ended (the last session closing looks like this).
	SessionsChangedBeforeExit bool

	// KillRequested: tmux-mcp ran kill-server (or was asked to stop the
	// server) itself.
	KillRequested bool
	// FDRatio is the server's open fds over its RLIMIT_NOFILE at the last
	// resource sample (0 when unknown).
	FDRatio float64
	// ProbeTimeouts counts commands or probes in a row that timed out.
	ProbeTimeouts int
	// StderrClass is the tmux.Err* class of the last failed command.
	StderrClass error
}

// FDLivelockRatio is the fd usage above which a live server that stops
// answering is taken to be livelocked in imsg_read (EAGAIN) rather than
// merely hung.
const FDLivelockRatio = 0.85

// isCrashSignal reports whether sig means the server itself faulted.
func isCrashSignal(sig syscall.Signal) bool {
	switch sig {
	case syscall.SIGSEGV, syscall.SIGABRT, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE, syscall.SIGSYS, syscall.SIGTRAP:
		return true
	}
	return false
}

// Classify says why a server died or stopped answering, and explains
// it in a sentence for the crash report. It is pure, and the one
// classifier: the monitor and diagnose both call it. The Cause is "" when
// the evidence shows a live server whose socket accepts and nothing wrong
// with it (say, only the control connection was lost, because its hidden
// session was killed): that is no death; reconnect, do not restart.
func Classify(e Evidence) (Cause, string) {
	who := "server"
	if e.PID > 0 {
		who = "server PID " + strconv.Itoa(e.PID)
	}
	connect := func(errno syscall.Errno) bool { return errors.Is(e.ConnectErr, errno) }
	timedOut := e.ProbeTimeouts > 0 || errors.Is(e.StderrClass, tmux.ErrTimeout) ||
		connect(syscall.EAGAIN) || isTimeout(e.ConnectErr)
	exitedUnexpectedly := strings.Contains(e.ControlExitReason, "server exited unexpectedly") ||
		errors.Is(e.StderrClass, tmux.ErrServerExited)

	switch {
	case e.KillRequested:
		return CauseKillServer, who + " was killed on request (kill-server)"

	case e.Wait == nil && e.PIDAlive && (connect(syscall.ENOENT) || errors.Is(e.StderrClass, tmux.ErrSocketMissing)):
		return CauseSocketDeleted, who + " is alive but its socket file is gone (deleted by a /tmp cleaner or by hand); SIGUSR1 makes it create the socket again"
	case e.Wait == nil && e.PIDAlive && connect(syscall.ECONNREFUSED):
		return CauseSocketDeleted, who + " is alive but its socket path refuses connections (the socket file was replaced); SIGUSR1 makes it create the socket again"

	case errors.Is(e.StderrClass, tmux.ErrPermission) || connect(syscall.EACCES) || connect(syscall.EPERM):
		return CausePermission, "the socket or its directory refuses us: wrong owner or mode (tmux wants the directory owned by us, without permissions for others), or we are not in the server's access list"
	case errors.Is(e.StderrClass, tmux.ErrVersionMismatch):
		return CauseVersionSkew, who + " runs a tmux version that the tmux client does not speak to (upgraded binary?); restart the server, or run commands with its own binary (/proc/PID/exe)"

	case e.Wait == nil && e.PIDAlive && timedOut:
		if e.FDRatio >= FDLivelockRatio {
			return CauseFDLivelock, fmt.Sprintf("%s is alive but not answering with %.0f%% of its file descriptors in use: fd-exhausted servers spin in a livelock and never answer again", who, 100*e.FDRatio)
		}
		return CauseHung, who + " is alive but not answering (stopped with SIGSTOP, blocked writing to a stuck terminal, or a full accept backlog)"
	case e.Wait == nil && e.PIDAlive && exitedUnexpectedly:
		return CauseHung, who + " is alive but closes every connection: it is stuck exiting (after kill-server or SIGTERM, waiting for a job or a control client that does not read)"
	case e.Wait == nil && e.PIDAlive:
		return "", who + " is alive and its socket accepts connections"

	case e.Wait != nil:
		return classifyWait(who, *e.Wait)

	case e.ControlExited && exitedUnexpectedly:
		return CauseKilled, who + " is gone: the control connection closed without an exit message (SIGKILL, the OOM killer and a crash look the same here)"
	case e.ControlExited && e.SessionsChangedBeforeExit && e.ControlExitReason == "":
		return CauseLastSession, who + " exited after its last session closed (exit-empty)"
	case e.ControlExited && e.ControlExitReason != "":
		return CauseKilled, fmt.Sprintf("%s is gone: the control connection ended with %q", who, e.ControlExitReason)
	}
	detail := who + " is gone"
	switch {
	case connect(syscall.ECONNREFUSED) || errors.Is(e.StderrClass, tmux.ErrNoServer):
		detail += " and its socket is stale (connection refused)"
	case connect(syscall.ENOENT) || errors.Is(e.StderrClass, tmux.ErrSocketMissing):
		detail += " and its socket file is missing"
	}
	return CauseUnknown, detail + "; no exit status or control-mode reason was seen (a server tmux-mcp did not start ended without a trace: last session closed, killed, or crashed)"
}

func classifyWait(who string, ws syscall.WaitStatus) (Cause, string) {
	switch {
	case ws.Signaled():
		sig := ws.Signal()
		core := ""
		if ws.CoreDump() {
			core = ", core dumped"
		}
		if isCrashSignal(sig) {
			return CauseCrashed, fmt.Sprintf("%s crashed with signal %d (%s%s)", who, int(sig), sig, core)
		}
		return CauseKilled, fmt.Sprintf("%s ended by signal %d (%s)", who, int(sig), sig)
	case ws.Exited() && ws.ExitStatus() == 0:
		return CauseLastSession, who + " exited normally (status 0): its last session closed, or kill-server or SIGTERM came from outside tmux-mcp"
	case ws.Exited() && ws.ExitStatus() == 1:
		return CauseCrashed, who + " exited with status 1: a fatal error inside tmux (allocation failure, accept failure, ...), which tmux often does not log"
	case ws.Exited():
		return CauseUnknown, fmt.Sprintf("%s exited with status %d", who, ws.ExitStatus())
	}
	return CauseUnknown, fmt.Sprintf("%s ended with wait status %#x", who, uint32(ws))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.As(err, &ne) && ne.Timeout()
}

// WaitStatusOf returns the wait status in err as returned by exec.Cmd.Wait
// (nil err: exit status 0), or nil when err carries none.
func WaitStatusOf(err error) *syscall.WaitStatus {
	var ws syscall.WaitStatus
	if err == nil {
		return &ws
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return nil
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok {
		return nil
	}
	return &ws
}
