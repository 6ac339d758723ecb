package supervisor

import (
	"errors"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
)

// ErrRateLimited matches the error of a call refused by a rate limit: retry
// after the delay it names.
var ErrRateLimited = errors.New("supervisor: rate limited")

// RateLimitedError is a call refused by a token bucket.
type RateLimitedError struct {
	// RetryAfter is when a token will be available.
	RetryAfter time.Duration
	// Scope names the bucket: "pane %3" or "server".
	Scope string
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("rate limited (%s), retry after %s", e.Scope, death.RoundDelay(e.RetryAfter))
}

// Is matches ErrRateLimited.
func (e *RateLimitedError) Is(target error) bool { return target == ErrRateLimited }

// RetryDelay says when the call may succeed.
func (e *RateLimitedError) RetryDelay() time.Duration { return e.RetryAfter }
