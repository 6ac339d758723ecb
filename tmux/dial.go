package tmux

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"github.com/tmux-mcp/tmux-mcp/tmux/native"
)

// The wire's side of its own tmux clients (package native speaks the
// protocol): which socket a client connects to, whether it trusts what
// listens there (trust.go), and the *CommandErrors a failure gives, with
// the messages a tmux client prints, classified the same way.

// nativeDial connects to socket's server after checking the socket, and
// then checks who listens on it. Errors are *CommandErrors with the
// messages a tmux client prints, classified the same way.
func nativeDial(ctx context.Context, socket Socket, args []string) (*net.UnixConn, error) {
	path := socket.ResolvedPath()
	fail := func(msg string, cause error) error {
		return &CommandError{Args: args, Stderr: msg, ExitCode: 1, Class: Classify(msg), Transport: "exec", cause: cause}
	}
	if err := CheckSocket(path); err != nil {
		return nil, &CommandError{Args: args, Stderr: err.Error(), ExitCode: 1, Class: ErrPermission, Transport: "exec", cause: err}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		var errno syscall.Errno
		switch {
		case ctx.Err() != nil:
			return nil, &CommandError{Args: args, ExitCode: -1, Class: ctxClass(ctx.Err()), Transport: "exec", cause: ctx.Err()}
		case errors.As(err, &errno) && errno == syscall.ECONNREFUSED:
			return nil, fail("no server running on "+path, err)
		case errors.As(err, &errno):
			return nil, fail(fmt.Sprintf("error connecting to %s (%s)", path, errnoText(errno)), err)
		default:
			return nil, fail(fmt.Sprintf("error connecting to %s (%v)", path, err), err)
		}
	}
	conn := c.(*net.UnixConn)
	if err := checkPeer(path, conn); err != nil {
		conn.Close()
		return nil, &CommandError{Args: args, Stderr: err.Error(), ExitCode: 1, Class: ErrPermission, Transport: "exec", cause: err}
	}
	return conn, nil
}

// errnoText is strerror's text for the errors a connect gives, as tmux
// prints them ("No such file or directory").
func errnoText(e syscall.Errno) string {
	s := e.Error()
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func ctxClass(err error) error {
	if errors.Is(err, context.Canceled) {
		return ErrCommand
	}
	return ErrTimeout
}

// runNative runs argv (one command line) as a command client of socket's
// server, as `tmux -u -N -S path argv...` would, within ctx; a file the
// command reads or writes through its client must be one that paths
// names (native.Run).
func runNative(ctx context.Context, socket Socket, argv, paths, extraEnv []string) (native.Result, error) {
	conn, err := nativeDial(ctx, socket, argv)
	if err != nil {
		return native.Result{}, err
	}
	res, err := native.Run(ctx, conn, argv, paths, extraEnv)
	return res, nativeError(ctx, argv, "exec", err)
}

// dialNativeControl connects a control client to socket's server and
// attaches it with attach (the attach-session argv), passing in as the
// client's stdin (commands) and out as its stdout (the control stream).
// layout is how the server marks a passed descriptor.
func dialNativeControl(ctx context.Context, socket Socket, attach []string, in, out *os.File, layout native.FDLayout, extraEnv []string) (*native.Control, error) {
	if layout == native.LayoutUnknown {
		return nil, errors.New("tmux: dial control: the server's message layout is not known")
	}
	conn, err := nativeDial(ctx, socket, attach)
	if err != nil {
		return nil, err
	}
	nc, err := native.AttachControl(ctx, conn, attach, in, out, layout, extraEnv)
	if err != nil {
		return nil, nativeError(ctx, attach, "control", err)
	}
	return nc, nil
}

// nativeError is the *CommandError for an error of package native on a
// connection to the server (nil for nil): a command the protocol cannot
// carry, a server that speaks another protocol version or sends what
// tmux-mcp never obeys, and otherwise a connection that failed
// (connError).
func nativeError(ctx context.Context, args []string, transport string, err error) error {
	var refused *native.RefusedError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, native.ErrCommandTooLong):
		return &CommandError{Args: args, Stderr: err.Error(), ExitCode: 1, Class: ErrInvalidArg, Transport: transport}
	case errors.Is(err, native.ErrProtocolVersion):
		return &CommandError{Args: args, Stderr: err.Error(), ExitCode: 1, Class: ErrVersionMismatch, Transport: transport}
	case errors.As(err, &refused):
		return &CommandError{Args: args, Stderr: err.Error(), ExitCode: 1, Class: ErrPermission, Transport: transport}
	default:
		return connError(ctx, args, err)
	}
}

// connError is the error of a connection that failed after connecting:
// the deadline, or the server gone ("server exited unexpectedly", as
// tmux's client says).
func connError(ctx context.Context, args []string, err error) error {
	if ctx.Err() != nil {
		return &CommandError{Args: args, ExitCode: -1, Class: ctxClass(ctx.Err()), Transport: "exec", cause: ctx.Err()}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &CommandError{Args: args, ExitCode: -1, Class: ErrTimeout, Transport: "exec", cause: err}
	}
	return &CommandError{Args: args, Stderr: "server exited unexpectedly", ExitCode: 1, Class: ErrServerExited, Transport: "exec", cause: err}
}
