package supervisor

import (
	"errors"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
)

// ErrRestarting matches the error of a call made while its server is being
// restarted: retry after the delay it names.
var ErrRestarting = errors.New("supervisor: tmux server restarting")

// ErrServerDown matches the error of a call made to a server that is down
// and will not be restarted automatically.
var ErrServerDown = errors.New("supervisor: tmux server is down")

// restartingError is the fail-fast error of a call that arrives while the
// server is being restarted.
type restartingError struct {
	Attempt, Max int
	RetryIn      time.Duration
}

func (e *restartingError) Error() string {
	return fmt.Sprintf("tmux server restarting (attempt %d/%d), retry in %s", e.Attempt, e.Max, death.RoundDelay(e.RetryIn))
}

func (e *restartingError) Is(target error) bool { return target == ErrRestarting }

// RetryDelay says when the call may succeed.
func (e *restartingError) RetryDelay() time.Duration { return e.RetryIn }

// serverDownError is the error of a call to a server that is down for good.
type serverDownError struct {
	Cause  death.Cause
	Reason string // what happened and what to do
}

func (e *serverDownError) Error() string {
	msg := "tmux server is down"
	if e.Cause != "" {
		msg += " (" + string(e.Cause) + ")"
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

func (e *serverDownError) Is(target error) bool { return target == ErrServerDown }
