package supervisor

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// maxBlocking bounds the commands per server that may wait inside tmux at
// once (DoBlocking).
const maxBlocking = 16

// ErrNoDeadline is returned by DoBlocking for a context without a deadline.
var ErrNoDeadline = errors.New("supervisor: a blocking tmux command needs a deadline")

// DoBlocking runs one tmux command that may wait inside tmux for as long
// as ctx allows, such as `wait-for CHANNEL`. It passes the same health
// gate, rate limit and events as Do, but always runs over the exec
// transport: on the shared control-mode connection a blocking command
// would hold up every command queued behind it. It takes one of
// maxBlocking slots of its own rather than an in-flight slot, its timeout
// does not count against the server's health, and ctx must carry a
// deadline. Cancelling ctx kills the waiting tmux client.
func (s *Server) DoBlocking(ctx context.Context, args ...string) ([]byte, error) {
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
		return tr.Run(ctx, args...)
	})
}
