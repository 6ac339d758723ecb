package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// maxBlocking bounds the commands per server that may wait inside tmux at
// once (doBlocking).
const maxBlocking = 16

// ErrNoDeadline is returned by a blocking command (WaitForChannel, through
// doBlocking) for a context without a deadline.
var ErrNoDeadline = errors.New("supervisor: a blocking tmux command needs a deadline")

// doBlocking runs one tmux command that may wait inside tmux for as long
// as ctx allows, such as `wait-for CHANNEL`. It passes the same health
// gate, rate limit and events as do, but always runs over the exec
// transport: on the shared control-mode connection a blocking command
// would hold up every command queued behind it. It takes one of
// maxBlocking slots of its own rather than an in-flight slot, its timeout
// does not count against the server's health, and ctx must carry a
// deadline. Cancelling ctx kills the waiting tmux client.
func (s *Server) doBlocking(ctx context.Context, args ...string) ([]byte, error) {
	if len(args) == 0 {
		return nil, errors.New("supervisor: empty tmux command")
	}
	if _, ok := ctx.Deadline(); !ok {
		return nil, fmt.Errorf("tmux %s: %w", args[0], ErrNoDeadline)
	}
	if err := s.gate(ctx); err != nil {
		return nil, err
	}
	return s.callOn(ctx, args[0], s.client.Exec(), func(ctx context.Context, tr tmux.Transport) ([]byte, error) {
		s.waiting.Add(1)
		defer s.waiting.Add(-1)
		return tr.Run(ctx, args...)
	})
}

// Alive returns the PID of the server that answers on the socket now. It
// asks over exec and skips the health gate, so it never adopts, restarts
// or starts a server: a dead server yields an error matching
// tmux.IsServerDown. A tmux client waiting in `wait-for` exits 0 both when
// its channel is signalled and when the server goes away; comparing the
// PID before and after the wait tells the two apart.
func (s *Server) Alive(ctx context.Context) (int, error) {
	out, err := s.callOn(ctx, "display-message", s.client.Exec(), func(ctx context.Context, tr tmux.Transport) ([]byte, error) {
		return tr.Run(ctx, "display-message", "-p", "#{pid}")
	})
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("supervisor: server pid: unexpected answer of %d bytes", len(out))
	}
	return pid, nil
}
