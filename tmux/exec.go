package tmux

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/native"
)

// DefaultTimeout bounds a tmux command whose context has no deadline.
const DefaultTimeout = 5 * time.Second

// Transport carries one tmux command to a server and returns its stdout.
// args is the command without the tmux binary and socket flags, for example
// {"display-message", "-p", "#{pid}"}. Output is what tmux prints: lines,
// each ending in "\n". A failed command returns a *CommandError.
type Transport interface {
	Run(ctx context.Context, args ...string) ([]byte, error)
	// Kind names the transport: "exec" or "control".
	Kind() string
	Close() error
}

// Exec is the per-command transport: one client connection per command,
// made by tmux-mcp itself (package native), as `tmux -N -S path command` would
// make it. Only where tmux itself is needed does it run the tmux binary:
// to start a server (StartServer, or a command that may start one, without
// SetNoStart) and for a server that speaks another protocol. It is safe
// for concurrent use.
type Exec struct {
	Binary string // tmux binary; "tmux" when empty
	Socket Socket
	// Config is passed as -f when set (tests use /dev/null). It only
	// matters for commands that start a server.
	Config string
	// Env is extra environment for the client (KEY=VALUE); its
	// TMUX_TMPDIR also places a -L socket.
	Env []string
	// PassEnv names the variables of this process's environment that a
	// tmux process it runs gets besides ServerEnvNames (names, or NAME*
	// prefixes; see ServerEnviron).
	PassEnv []string

	noStart atomic.Bool // never start a server (and pass tmux -N where the binary runs)

	// layout is how the server marks a descriptor passed in a message
	// (a native.FDLayout), once its version is known: control clients pass two.
	layout atomic.Int32
}

// SetNoStart makes sure no command starts a server by accident
// (new-session on a missing socket would otherwise start a second server
// and orphan a live one): a command then never falls back to the tmux
// binary for a missing server, and the binary, where it runs, gets -N.
// StartServer is the one deliberate way to start a server. Needs a tmux
// client of 3.2 or later.
func (e *Exec) SetNoStart(on bool) { e.noStart.Store(on) }

// Kind returns "exec".
func (e *Exec) Kind() string { return "exec" }

// Close does nothing: Exec holds no resources between commands.
func (e *Exec) Close() error { return nil }

// Command returns the full argv (binary first) that Run would execute.
func (e *Exec) Command(args ...string) []string {
	argv := e.base()
	if e.noStart.Load() {
		argv = append(argv, "-N")
	}
	return append(argv, args...)
}

// base is the binary, the socket and the config flags.
func (e *Exec) base() []string {
	bin := e.Binary
	if bin == "" {
		bin = "tmux"
	}
	// -u: tmux believes the client speaks UTF-8 whatever the locale
	// tmux-mcp was started with (MCP clients often pass none). Without it,
	// tmux replaces every control and non-ASCII character in command output
	// with '_' (utf8_sanitize), which loses names and titles. The server
	// picks a UTF-8 locale for itself on every supported version.
	argv := append([]string{bin, "-u"}, e.Socket.Args()...)
	if e.Config != "" {
		argv = append(argv, "-f", e.Config)
	}
	return argv
}

// Environ returns the environment for a tmux child, which becomes the
// global environment of a server it starts and so every pane's: the part
// of the current one that ServerEnviron keeps with PassEnv (never TMUX
// and TMUX_PANE, so tmux never picks the caller's server, nor
// tmux-mcp's own settings and secrets), plus Env.
func (e *Exec) Environ() []string {
	return append(ServerEnviron(os.Environ(), e.PassEnv), e.Env...)
}

// argvLiteral keeps a command one command on a tmux client's command
// line: there an argument ending in ";" ends the command (the ";" is cut
// off and what follows is the next command) unless the ";" is escaped as
// "\;" (cmd_parse_from_arguments, the same in 3.2a to 3.7c). Control mode
// needs no such escape: codec.Quote puts ";" in quotes.
func argvLiteral(args []string) []string {
	var out []string
	for i, a := range args {
		if i > 0 && strings.HasSuffix(a, ";") {
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = a[:len(a)-1] + `\;`
		}
	}
	if out == nil {
		return args
	}
	return out
}

// Run runs one command as a client of its own, waits for it and returns
// its stdout. Without a deadline on ctx, DefaultTimeout applies. When ctx
// ends the connection is dropped and the error matches ErrTimeout (or is
// a cancelled command); tmux may still run the command. Every
// argument reaches tmux as given: one that is or ends in ";" does not end
// the command (RunSequence sends several).
func (e *Exec) Run(ctx context.Context, args ...string) ([]byte, error) {
	return e.RunSequence(ctx, args)
}

// RunSequence is Run for several commands in one client (one
// connection to the server): tmux runs them in order and stops at the
// first that fails. The error's Args are the first command's.
func (e *Exec) RunSequence(ctx context.Context, cmds ...[]string) ([]byte, error) {
	if err := e.Socket.Validate(); err != nil {
		return nil, err
	}
	if len(cmds) == 0 {
		return nil, errors.New("tmux: exec run: no command")
	}
	var line []string
	for i, c := range cmds {
		c, err := literalArgs(c)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			line = append(line, ";")
		}
		line = append(line, argvLiteral(c)...)
	}
	args := cmds[0]
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	var paths []string
	for _, c := range cmds {
		paths = append(paths, c[1:]...)
	}
	res, err := runNative(ctx, e.socket(), line, paths, e.Env)
	switch {
	case err == nil:
		if res.Status == 0 {
			return res.Stdout, nil
		}
		msg := string(res.Stderr)
		if msg == "" {
			msg = res.ExitMsg
		}
		return res.Stdout, &CommandError{Args: args, Stderr: msg, ExitCode: res.Status, Class: Classify(msg), Transport: "exec"}
	case errors.Is(err, ErrVersionMismatch),
		!e.noStart.Load() && (errors.Is(err, ErrNoServer) || errors.Is(err, ErrSocketMissing)):
		// A server that speaks another protocol, or a command that may
		// start a server (only tmux itself can): run the tmux binary.
		return e.runBinary(ctx, args, line)
	default:
		if ce := (*CommandError)(nil); errors.As(err, &ce) {
			ce.Args = args
		}
		return nil, err
	}
}

// socket is e.Socket with a -L name resolved to its path the way tmux
// would resolve it with e.Env (TMUX_TMPDIR).
func (e *Exec) socket() Socket {
	if e.Socket.Path != "" {
		return e.Socket
	}
	for i := len(e.Env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(e.Env[i], "TMUX_TMPDIR="); ok {
			return Socket{Path: filepath.Join(SocketDirFor(v), e.Socket.Name)}
		}
	}
	return Socket{Path: e.Socket.ResolvedPath()}
}

// runBinary runs line with one tmux client process. The socket is checked
// first: a tmux client sends its server its whole environment and runs
// what the server tells it to.
func (e *Exec) runBinary(ctx context.Context, args, line []string) ([]byte, error) {
	if err := CheckSocket(e.socket().Path); err != nil {
		return nil, &CommandError{Args: args, Stderr: err.Error(), ExitCode: 1, Class: ErrPermission, Transport: "exec", cause: err}
	}
	argv := e.Command(line...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = e.Environ()
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The server holds a copy of the client's stdout until it has handled
	// the client's exit, and a client that starts a server forks it with
	// our pipes: bound the wait for them to close. A client that exited
	// successfully wrote all its output itself before exiting (tmux sends
	// output as messages and the client exits only once it is written),
	// so a server slow to let go of the pipe is no failure.
	cmd.WaitDelay = 500 * time.Millisecond
	err := cmd.Run()
	if err == nil || (errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success()) {
		return stdout.Bytes(), nil
	}
	cerr := &CommandError{Args: args, Stderr: stderr.String(), ExitCode: -1, Transport: "exec", cause: err}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		cerr.Class, cerr.cause = ErrTimeout, ctx.Err()
		if errors.Is(ctx.Err(), context.Canceled) {
			cerr.Class = ErrCommand
		}
	case errors.As(err, &exitErr):
		cerr.ExitCode = exitErr.ExitCode()
		cerr.Class = Classify(cerr.Stderr)
		cerr.cause = nil
	default:
		cerr.Class = ErrCommand
	}
	return stdout.Bytes(), cerr
}

// BinaryVersion returns the version of the tmux binary (tmux -V), which
// contacts no server.
func (e *Exec) BinaryVersion(ctx context.Context) (Version, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	bin := e.Binary
	if bin == "" {
		bin = "tmux"
	}
	out, err := exec.CommandContext(ctx, bin, "-V").Output()
	if err != nil {
		return Version{}, &CommandError{Args: []string{"-V"}, ExitCode: -1, Class: ErrCommand, Transport: "exec", cause: err}
	}
	return ParseVersion(string(out))
}

// setLayout records how the server of version v marks passed descriptors.
func (e *Exec) setLayout(v Version) {
	l := native.LayoutFlags
	if v.Capabilities().ImsgFDMark {
		l = native.LayoutLenMark
	}
	e.layout.Store(int32(l))
}

// fdLayout returns how the server marks passed descriptors, asking its
// version (one command) when it is not known yet.
func (e *Exec) fdLayout(ctx context.Context) (native.FDLayout, error) {
	if l := native.FDLayout(e.layout.Load()); l != native.LayoutUnknown {
		return l, nil
	}
	out, err := e.Run(ctx, "display-message", "-p", "#{version}")
	if err != nil {
		return native.LayoutUnknown, err
	}
	v, err := ParseVersion(string(out))
	if err != nil {
		return native.LayoutUnknown, err
	}
	e.setLayout(v)
	return native.FDLayout(e.layout.Load()), nil
}
