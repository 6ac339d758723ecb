package tmux

import (
	"errors"
	"fmt"
	"strings"
)

// Error classes. A failed tmux command comes back as a *CommandError whose
// Class is one of these; errors.Is matches the class (and ErrNotFound for the
// three not-found classes, ErrCommand for every command error).
var (
	// ErrCommand matches every *CommandError.
	ErrCommand = errors.New("tmux: command failed")

	// ErrNoServer: the socket file exists but nothing listens ("no server
	// running on <path>"): the server is dead and the socket stale.
	ErrNoServer = errors.New("tmux: no server running")
	// ErrSocketMissing: the socket file is gone ("error connecting to <path>
	// (No such file or directory)"); the server may still be alive.
	ErrSocketMissing = errors.New("tmux: socket missing")
	// ErrServerExited: the connection closed without an exit message
	// ("server exited unexpectedly"): a crash, a SIGKILL, or a server that
	// is exiting and refuses new clients.
	ErrServerExited = errors.New("tmux: server exited unexpectedly")
	// ErrPermission: unsafe socket directory, permission denied, or not in
	// the server's access list.
	ErrPermission = errors.New("tmux: permission denied")
	// ErrVersionMismatch: client and server binaries do not speak the same
	// protocol.
	ErrVersionMismatch = errors.New("tmux: client and server versions differ")
	// ErrNotFound matches the three not-found classes below.
	ErrNotFound        = errors.New("tmux: target not found")
	ErrSessionNotFound = errors.New("tmux: session not found")
	ErrWindowNotFound  = errors.New("tmux: window not found")
	ErrPaneNotFound    = errors.New("tmux: pane not found")
	// ErrDuplicateSession: a session with that name exists.
	ErrDuplicateSession = errors.New("tmux: duplicate session")
	// ErrSpawnFailed: tmux could not start a pane ("fork failed: ..."),
	// usually PTY or fd exhaustion; the server stays up.
	ErrSpawnFailed = errors.New("tmux: pane spawn failed")
	// ErrTimeout: the command did not finish before its deadline.
	ErrTimeout = errors.New("tmux: command timed out")
	// ErrConnectionLost: a control-mode connection ended (%exit or EOF).
	ErrConnectionLost = errors.New("tmux: control connection lost")
	// ErrInvalidArg: the wire refused the command before sending it: an
	// argument cannot reach tmux as the literal text it is (a NUL byte, a
	// name tmux would store differently, a flag that would expand it; see
	// literal.go).
	ErrInvalidArg = errors.New("tmux: invalid argument")
)

// CommandError is a tmux command that failed. Stderr holds tmux's own message
// (for control mode, the body of the %error block).
type CommandError struct {
	Args      []string // the tmux command, without binary and socket flags
	Stderr    string
	ExitCode  int    // -1 when the process did not exit normally (killed, timed out)
	Class     error  // one of the Err* classes; ErrCommand when unclassified
	Transport string // "exec" or "control"
	cause     error  // underlying error (context deadline, exec failure), if any
}

func (e *CommandError) Error() string {
	name := "tmux"
	if len(e.Args) > 0 {
		name = "tmux " + e.Args[0]
	}
	msg := strings.TrimSpace(e.Stderr)
	switch {
	case msg != "":
		return name + ": " + msg
	case e.cause != nil:
		return fmt.Sprintf("%s: %v", name, e.cause)
	default:
		return fmt.Sprintf("%s: exit status %d", name, e.ExitCode)
	}
}

// Is matches the error's class, ErrNotFound for the not-found classes, and
// ErrCommand.
func (e *CommandError) Is(target error) bool {
	if target == ErrCommand || target == e.Class {
		return true
	}
	if target == ErrNotFound {
		return e.Class == ErrSessionNotFound || e.Class == ErrWindowNotFound || e.Class == ErrPaneNotFound
	}
	return false
}

// Unwrap returns the underlying cause (for example context.DeadlineExceeded).
func (e *CommandError) Unwrap() error { return e.cause }

// ConnLostError reports the end of a control-mode connection and why.
type ConnLostError struct {
	Reason string // the %exit reason, "EOF", or the read error
}

func (e *ConnLostError) Error() string {
	if e.Reason == "" {
		return "tmux: control connection lost"
	}
	return "tmux: control connection lost: " + e.Reason
}

// Is matches ErrConnectionLost, ErrServerExited when the reason says so,
// and ErrTimeout when the connection was ended because a command on it
// timed out (every command in flight then shares that fate).
func (e *ConnLostError) Is(target error) bool {
	return target == ErrConnectionLost ||
		(target == ErrServerExited && strings.Contains(e.Reason, "server exited unexpectedly")) ||
		(target == ErrTimeout && strings.HasSuffix(e.Reason, "timed out"))
}

// stderrClasses maps a fragment of tmux's stderr to an error class. Order
// matters: the first match wins.
var stderrClasses = []struct {
	fragment string
	class    error
}{
	{"no server running on", ErrNoServer},
	{"(No such file or directory)", ErrSocketMissing},
	{"server exited unexpectedly", ErrServerExited},
	{"lost server", ErrServerExited},
	{"has unsafe permissions", ErrPermission},
	{"(Permission denied)", ErrPermission},
	{"access not allowed", ErrPermission},
	{"protocol version mismatch", ErrVersionMismatch},
	{"server version is too old", ErrVersionMismatch},
	{"open terminal failed: not a terminal", ErrVersionMismatch},
	{"can't find session", ErrSessionNotFound},
	// A target lookup on a server with no sessions at all.
	{"no current target", ErrSessionNotFound},
	{"can't find window", ErrWindowNotFound},
	{"can't find pane", ErrPaneNotFound},
	{"duplicate session", ErrDuplicateSession},
	{"fork failed", ErrSpawnFailed},
}

// Classify returns the error class for a tmux error message, or ErrCommand
// when no known class matches.
func Classify(stderr string) error {
	for _, c := range stderrClasses {
		if strings.Contains(stderr, c.fragment) {
			return c.class
		}
	}
	return ErrCommand
}

// ClassName returns a short stable name for an error's class, for metrics,
// traces and tool results: "no_server", "pane_not_found", "timeout", ...
// It returns "" for nil and "other" for errors from outside this package.
func ClassName(err error) string {
	if err == nil {
		return ""
	}
	for _, c := range classNames {
		if errors.Is(err, c.class) {
			return c.name
		}
	}
	return "other"
}

var classNames = []struct {
	class error
	name  string
}{
	{ErrTimeout, "timeout"},
	{ErrNoServer, "no_server"},
	{ErrSocketMissing, "socket_missing"},
	{ErrServerExited, "server_exited"},
	{ErrConnectionLost, "connection_lost"},
	{ErrPermission, "permission"},
	{ErrVersionMismatch, "version_mismatch"},
	{ErrSessionNotFound, "session_not_found"},
	{ErrWindowNotFound, "window_not_found"},
	{ErrPaneNotFound, "pane_not_found"},
	{ErrDuplicateSession, "duplicate_session"},
	{ErrSpawnFailed, "spawn_failed"},
	{ErrRefused, "refused"},
	{ErrInvalidArg, "argument"},
	{ErrCommand, "command"},
}

// IsServerDown reports whether err means the server cannot be reached at all
// (as opposed to a command that the server rejected).
func IsServerDown(err error) bool {
	return errors.Is(err, ErrNoServer) || errors.Is(err, ErrSocketMissing) ||
		errors.Is(err, ErrServerExited) || errors.Is(err, ErrConnectionLost)
}
