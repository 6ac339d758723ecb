package supervisor

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
)

func TestRestartingError(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&restartingError{Attempt: 2, Max: 5, RetryIn: 1234 * time.Millisecond}, "tmux server restarting (attempt 2/5), retry in 1.2s"},
		{&restartingError{Attempt: 1, Max: 5, RetryIn: 200*time.Millisecond + 300*time.Microsecond}, "tmux server restarting (attempt 1/5), retry in 200ms"},
		{&serverDownError{Cause: death.CausePermission, Reason: "fix the socket directory"}, "tmux server is down (permission): fix the socket directory"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	wrapped := fmt.Errorf("capture: %w", &restartingError{Attempt: 1, Max: 5})
	if !errors.Is(wrapped, ErrRestarting) || errors.Is(wrapped, ErrServerDown) {
		t.Errorf("errors.Is(restartingError): ErrRestarting %v, ErrServerDown %v; want true, false",
			errors.Is(wrapped, ErrRestarting), errors.Is(wrapped, ErrServerDown))
	}
	if down := fmt.Errorf("x: %w", &serverDownError{}); !errors.Is(down, ErrServerDown) {
		t.Errorf("errors.Is(serverDownError, ErrServerDown) = false, want true")
	}
	var re *restartingError
	if !errors.As(wrapped, &re) || re.Attempt != 1 {
		t.Errorf("errors.As(restartingError) failed")
	}
}
