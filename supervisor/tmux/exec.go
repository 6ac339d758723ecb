package tmux

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"time"
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

// Exec is the subprocess transport: one tmux client process per command.
// It is safe for concurrent use.
type Exec struct {
	Binary string // tmux binary; "tmux" when empty
	Socket Socket
	// Config is passed as -f when set (tests use /dev/null). It only
	// matters for commands that start a server.
	Config string
	// Env is extra environment for the tmux process (KEY=VALUE).
	Env []string

	noStart atomic.Bool // pass -N: never start a server (tmux 3.2+)

	// gate keeps commands and control-client handshakes to this server
	// apart where tmux needs it (handshake.go); every transport of the
	// server shares it through this Exec.
	gate handshakeGate
}

// SetNoStart makes every command carry tmux's -N, so that no command can
// start a server by accident (new-session on a missing socket would
// otherwise start a second server and orphan a live one). StartServer is
// the one deliberate way to start a server. Needs a tmux client of 3.2 or
// later.
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

// Environ returns the environment for a tmux child: the current one without
// TMUX and TMUX_PANE (so tmux never picks the caller's server), plus Env.
func (e *Exec) Environ() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		if strings.HasPrefix(kv, "TMUX=") || strings.HasPrefix(kv, "TMUX_PANE=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, e.Env...)
}

// argvLiteral keeps a command one command on a tmux client's command
// line: there an argument ending in ";" ends the command (the ";" is cut
// off and what follows is the next command) unless the ";" is escaped as
// "\;" (cmd_parse_from_arguments, the same in 3.2a to 3.7c). Control mode
// needs no such escape: Quote puts ";" in quotes.
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

// Run starts one tmux client for one command, waits for it and returns
// its stdout. Without a deadline on ctx, DefaultTimeout applies. On
// timeout the client is killed with SIGKILL (a tmux client blocked in
// connect ignores SIGTERM) and the error matches ErrTimeout. Every
// argument reaches tmux as given: one that is or ends in ";" does not end
// the command (RunSequence sends several).
func (e *Exec) Run(ctx context.Context, args ...string) ([]byte, error) {
	return e.RunSequence(ctx, args)
}

// RunSequence is Run for several commands in one tmux client (one
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
	if gated(cmds[0]) {
		release, err := e.gate.command(ctx)
		if err != nil {
			return nil, gateError(args, "exec", err)
		}
		defer release()
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
