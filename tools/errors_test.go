package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// fakeRestarting stands in for the supervisor's unexported restarting
// error: same message, same Is and RetryDelay.
type fakeRestarting struct{ in time.Duration }

func (e fakeRestarting) Error() string {
	return fmt.Sprintf("tmux server restarting (attempt 1/5), retry in %s", e.in)
}
func (e fakeRestarting) Is(target error) bool      { return target == supervisor.ErrRestarting }
func (e fakeRestarting) RetryDelay() time.Duration { return e.in }

// fakeRestoring stands in for the supervisor's restoring error: it matches
// ErrRestoring and ErrRestarting.
type fakeRestoring struct{}

func (fakeRestoring) Error() string {
	return "tmux server restoring its sessions after a restart (waited 10s), retry in 1s"
}
func (fakeRestoring) Is(target error) bool {
	return target == supervisor.ErrRestoring || target == supervisor.ErrRestarting
}
func (fakeRestoring) RetryDelay() time.Duration { return time.Second }

// fakeDown stands in for the supervisor's unexported server-down error.
type fakeDown string

func (e fakeDown) Error() string        { return string(e) }
func (e fakeDown) Is(target error) bool { return target == supervisor.ErrServerDown }

// TestSupervisorErrorsAreToolErrors checks that every fail-fast error of the
// supervisor reaches the agent as a tool error result with its class and a
// next step, never as a Go error.
func TestSupervisorErrorsAreToolErrors(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("supervisor: list-sessions: %w", err) }
	tests := []struct {
		name      string
		err       error
		wantClass string
		want      []string
	}{
		{"restarting", fakeRestarting{20 * time.Millisecond}, "restarting",
			[]string{"tmux server restarting (attempt 1/5), retry in 20ms [restarting]", "\nRetry in 0.1s."}},
		{"restoring", wrap(fakeRestoring{}), "restoring",
			[]string{"tmux server restoring its sessions", "[restoring]", "Retry in 1.0s."}},
		{"restarting wrapped", wrap(fakeRestarting{1234 * time.Millisecond}), "restarting",
			[]string{"tmux server restarting (attempt 1/5)", "Retry in 1.3s."}},
		{"rate limited", &supervisor.RateLimitedError{RetryAfter: 150 * time.Millisecond, Scope: "pane %3"}, "rate_limited",
			[]string{"rate limited (pane %3), retry after 150ms [rate_limited]", "Retry in 0.2s."}},
		{"rate limited wrapped", wrap(&supervisor.RateLimitedError{RetryAfter: 2 * time.Second, Scope: "server"}), "rate_limited",
			[]string{"rate limited (server)", "Retry in 2.0s."}},
		{"fds exhausted", &supervisor.ResourceExhaustedError{Resource: "fds", Used: 950, Limit: 1024}, "resource_exhausted",
			[]string{"950 of 1024 file descriptors", "[resource_exhausted]", "Close panes", "raise the limit"}},
		{"ptys exhausted", wrap(&supervisor.ResourceExhaustedError{Resource: "ptys", Used: 3900, Limit: 4096}), "resource_exhausted",
			[]string{"3900 of 4096 pseudo-terminals", "[resource_exhausted]", "kill_window"}},
		{"server down", fakeDown("tmux server is down (crashed): gave up after 5 restart attempts"), "server_down",
			[]string{"tmux server is down (crashed) [server_down]\nGave up after 5 restart attempts. Call server_health"}},
		{"server down wrapped", wrap(fakeDown("tmux server is down (permission): the socket has the wrong owner; fix it and retry")), "server_down",
			[]string{"tmux server is down (permission) [server_down]", "\nThe socket has the wrong owner; fix it and retry."}},
		{"server down bare", fakeDown("tmux server is down"), "server_down",
			[]string{"tmux server is down [server_down]", "call server_health"}},
		{"closed", supervisor.ErrClosed, "shutting_down", []string{"tmux-mcp is shutting down [shutting_down]"}},
		{"closed wrapped", wrap(supervisor.ErrClosed), "shutting_down", []string{"tmux-mcp is shutting down"}},
		{"no server", wrap(tmux.ErrNoServer), "no_server", []string{"tmux server unreachable", "server_health"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := handle(mcp.NewTool("probe"), func(context.Context, tooldef.Args) (*mcp.CallToolResult, error) {
				return nil, tt.err
			})
			res, err := h(context.Background(), mcp.CallToolRequest{})
			if err != nil {
				t.Fatalf("got Go error %v, want a tool error result", err)
			}
			if res == nil || !res.IsError {
				t.Fatalf("got result %+v, want an error result", res)
			}
			got := text(res)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got text %q, want it to contain %q", got, w)
				}
			}
			if class, _ := res.Meta.AdditionalFields["error_type"].(string); class != tt.wantClass {
				t.Errorf("got error_type %q, want %q", class, tt.wantClass)
			}
		})
	}
}

// TestInternalErrorsStayGoErrors checks the other side of the contract:
// faults the caller cannot act on are Go errors.
func TestInternalErrorsStayGoErrors(t *testing.T) {
	for _, err := range []error{errors.New("boom"), context.Canceled} {
		h := handle(mcp.NewTool("probe"), func(context.Context, tooldef.Args) (*mcp.CallToolResult, error) { return nil, err })
		if res, got := h(context.Background(), mcp.CallToolRequest{}); got == nil || res != nil {
			t.Errorf("handler error %v: got result %v, error %v; want a Go error", err, res, got)
		}
	}
}

func TestRetryHint(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want string
	}{
		{0, "Retry in 0.1s."},
		{20 * time.Millisecond, "Retry in 0.1s."},
		{300 * time.Millisecond, "Retry in 0.3s."},
		{301 * time.Millisecond, "Retry in 0.4s."},
		{2 * time.Second, "Retry in 2.0s."},
		{12345 * time.Millisecond, "Retry in 12.4s."},
	}
	for _, tt := range tests {
		if got := retryHint(tt.in); got != tt.want {
			t.Errorf("retryHint(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
