package supervisor

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestRateLimitedError(t *testing.T) {
	err := error(&RateLimitedError{RetryAfter: 150 * time.Millisecond, Scope: "pane %3"})
	if got, want := err.Error(), "rate limited (pane %3), retry after 150ms"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("capture: %w", err)
	if !errors.Is(wrapped, ErrRateLimited) {
		t.Errorf("errors.Is(wrapped, ErrRateLimited) = false, want true")
	}
	var rl *RateLimitedError
	if !errors.As(wrapped, &rl) || rl.Scope != "pane %3" {
		t.Errorf("errors.As did not find the scope")
	}
}
