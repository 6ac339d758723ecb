package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/spawn"
)

// StartOptions configures a server that tmux-mcp starts itself.
type StartOptions struct {
	// FDLimit is the server's RLIMIT_NOFILE soft limit. 0 means the highest
	// the process may set (its hard limit): a server inherits the limit of
	// whichever client started it, and near the limit it livelocks.
	FDLimit uint64
}

// StartedServer is a server process tmux-mcp started with tmux -D: it runs
// in the foreground as our child, in a session and process group of its
// own (and a user manager's scope where there is one: detach.go), with
// exit-empty off, so its exit status is known the moment it dies. It
// outlives tmux-mcp and the login session that started it.
type StartedServer struct {
	PID int
	// FDLimit is the RLIMIT_NOFILE soft limit the server was started with.
	FDLimit uint64
	done    chan struct{}
	err     error       // wait status, valid after done is closed
	proc    *os.Process // for Kill: signals only while not yet reaped
	release func()
}

// Kill ends the server with SIGKILL if it still runs. It goes through the
// process handle that reaps it, so it never signals a later process that
// reused the PID of one already reaped.
func (s *StartedServer) Kill() {
	if s != nil && s.proc != nil {
		s.proc.Kill() //nolint:errcheck // it may have exited already
	}
}

// Release lets go of the start lock, which StartServer keeps on success:
// another tmux-mcp process on the socket waits in StartServer (and then
// adopts this server) until the starter has finished setting it up and
// restoring it. tmux before 3.7 can crash when a control client is still
// identifying itself while another client's command announces a
// session created, closed or renamed (control_write on a client whose
// control state is not set up yet; 3.7 checks control_state), and
// attaching while the starter restores sessions is exactly that. Release
// may be called more than once.
func (s *StartedServer) Release() {
	if s != nil && s.release != nil {
		s.release()
	}
}

// wait reaps the server process and records how it exited. It runs
// until the server exits, which may be after supervision has ended.
func (s *StartedServer) wait(cmd *exec.Cmd) {
	s.err = cmd.Wait()
	close(s.done)
}

// Done is closed when the server process has exited.
func (s *StartedServer) Done() <-chan struct{} { return s.done }

// Err returns how the server exited (an *exec.ExitError carrying the exit
// status or signal), valid once Done is closed.
func (s *StartedServer) Err() error {
	<-s.done
	return s.err
}

// ErrServerRunning is returned by StartServer when a server already answers
// on the socket (another process started it first).
var ErrServerRunning = errors.New("tmux: a server already answers on the socket")

// StartServer starts a new server on e.Socket with `tmux -D` and waits until
// it answers. It refuses (ErrServerRunning) while a live server holds the
// socket, and before starting it makes sure the socket's directory exists
// with mode 0700. tmux -D takes no start lock of its own, so several
// tmux-mcp processes restarting the same server at once would each start
// one and orphan all but the last: a start lock beside the socket
// (startlock.go) serialises the check and the start. It needs tmux 3.2 or
// later.
func (e *Exec) StartServer(ctx context.Context, opts StartOptions) (*StartedServer, error) {
	path := e.Socket.ResolvedPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("tmux: start server: %w", err)
	}
	unlock, err := lockStart(ctx, path+startLockSuffix)
	if err != nil {
		return nil, fmt.Errorf("tmux: start server: %w", err)
	}
	var started *StartedServer
	defer func() {
		if started == nil {
			unlock()
		}
	}()
	if _, err := e.Run(ctx, "list-sessions"); err == nil {
		return nil, fmt.Errorf("tmux: start server on %s: %w", e.Socket, ErrServerRunning)
	} else if !errors.Is(err, ErrNoServer) && !errors.Is(err, ErrSocketMissing) {
		return nil, fmt.Errorf("tmux: start server: %w", err)
	}
	argv := append(e.base(), "-D")
	// Outside the login session (detach.go): in a user manager's scope
	// where there is one; if systemd-run cannot start it there, by setsid
	// alone.
	for _, scope := range []bool{true, false} {
		cmd, inScope := spawn.Detached(argv, e.Environ(), scope)
		s, err := e.startProcess(ctx, cmd, opts)
		if err == nil {
			s.release = sync.OnceFunc(unlock)
			started = s
			return s, nil
		}
		if !inScope || !errors.Is(err, errExitedAtOnce) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("tmux: start server: %w", errExitedAtOnce)
}

// errExitedAtOnce is a server that exited before it answered.
var errExitedAtOnce = errors.New("server exited at once")

// startProcess starts cmd (tmux -D) and waits until the server answers.
// The start lock is the caller's.
func (e *Exec) startProcess(ctx context.Context, cmd *exec.Cmd, opts StartOptions) (*StartedServer, error) {
	limit, err := spawn.PrepareFDLimit(cmd, opts.FDLimit)
	if err != nil {
		return nil, fmt.Errorf("tmux: start server: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("tmux: start server: %w", err)
	}
	s := &StartedServer{PID: cmd.Process.Pid, FDLimit: limit, done: make(chan struct{}), proc: cmd.Process}
	go s.wait(cmd)
	set, err := spawn.SetFDLimit(s.PID, opts.FDLimit)
	if err != nil {
		cmd.Process.Kill() //nolint:errcheck // our own child
		return nil, err
	}
	if set != 0 {
		s.FDLimit = set
	}
	// Wait until it answers (the socket appears a moment after start).
	for {
		_, err := e.Run(ctx, "list-sessions")
		if errors.Is(err, ErrUntrustedSocket) {
			// Not an answer: nothing of ours may connect there.
			cmd.Process.Kill() //nolint:errcheck // our own child
			return nil, fmt.Errorf("tmux: start server: %w", err)
		}
		if err == nil || errors.Is(err, ErrCommand) && !IsServerDown(err) {
			// "no sessions" style errors mean it answers. The lock is
			// kept until the caller releases it (see Release).
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("tmux: start server: %w: %v", errExitedAtOnce, s.err)
		case <-ctx.Done():
			cmd.Process.Kill() //nolint:errcheck // our own child
			return nil, fmt.Errorf("tmux: start server: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}
