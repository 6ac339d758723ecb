package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// toolError is a failure the caller can act on. It becomes a tool error
// result: "<msg> [<class>]\n<hint>", with the class and hint in _meta too.
type toolError struct {
	msg   string
	class string // tmux.ClassName, "argument", "refused", or a supervisor class (restarting, rate_limited, ...)
	hint  string
}

func (e *toolError) Error() string { return e.msg }

// refused reports a request tmux-mcp will not carry out.
func refused(msg string) error { return &toolError{msg: msg, class: "refused"} }

// notFound reports a target that does not exist; class is the tmux class
// the same miss would have had (session_not_found, window_not_found).
func notFound(what, class string) error {
	return &toolError{msg: "Object not found: " + what, class: class, hint: hintIDs}
}

// RetryAfterError is implemented by supervisor errors that say when a call
// may succeed again (server restarting, rate limited).
type RetryAfterError interface {
	error
	RetryDelay() time.Duration
}

const (
	hintIDs   = "Call list_sessions / list_windows / list_panes to discover valid ids."
	hintPanes = "Call list_panes to discover valid pane ids."
)

// asToolError turns err into an actionable failure, or returns nil when err
// is an internal fault that should reach the client as a Go error.
func asToolError(err error) *toolError {
	var te *toolError
	if errors.As(err, &te) {
		return te
	}
	var ae *tooldef.ArgError
	if errors.As(err, &ae) {
		return &toolError{msg: ae.Msg, class: "argument", hint: ae.Hint}
	}
	var ge *guard.Error
	if errors.As(err, &ge) {
		return &toolError{msg: ge.Msg, class: ge.Class, hint: ge.Hint}
	}
	if te := driveError(err); te != nil {
		return te
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	if te := supervisorError(err); te != nil {
		return te
	}
	class := tmux.ClassName(err)
	switch {
	case errors.Is(err, tmux.ErrInvalidArg):
		// The wire refused an argument tmux could not take literally.
		return &toolError{msg: "invalid argument: " + err.Error(), class: "argument"}
	case errors.Is(err, tmux.ErrPaneNotFound):
		return &toolError{msg: "Pane not found: " + err.Error(), class: class, hint: hintPanes}
	case errors.Is(err, tmux.ErrNotFound):
		return &toolError{msg: "Object not found: " + err.Error(), class: class, hint: hintIDs}
	case tmux.IsServerDown(err):
		return &toolError{msg: "tmux server unreachable: " + err.Error(), class: class,
			hint: "The supervisor brings it back; call server_health, then retry."}
	case errors.Is(err, tmux.ErrTimeout) || errors.Is(err, context.DeadlineExceeded):
		return &toolError{msg: "tmux error: " + err.Error(), class: orClass(class, "timeout"),
			hint: "The server is slow or hung; call server_health, then retry."}
	case errors.Is(err, tmux.ErrDuplicateSession):
		return &toolError{msg: "tmux error: " + err.Error(), class: class, hint: "Choose another name, or call list_sessions."}
	case errors.Is(err, tmux.ErrSpawnFailed):
		return &toolError{msg: "tmux error: " + err.Error(), class: class,
			hint: "tmux is out of PTYs or file descriptors; call server_health and kill unused panes."}
	case errors.Is(err, tmux.ErrPermission), errors.Is(err, tmux.ErrVersionMismatch):
		return &toolError{msg: "tmux error: " + err.Error(), class: class, hint: "Check the socket and the tmux binary (tmux-mcp version)."}
	case errors.Is(err, tmux.ErrCommand):
		return &toolError{msg: "tmux error: " + err.Error(), class: class}
	}
	return nil
}

// supervisorError maps the supervisor's fail-fast errors: the server is
// restarting, a rate limit or a resource limit refused the call, restarts
// gave up, or tmux-mcp is shutting down. It returns nil for other errors.
func supervisorError(err error) *toolError {
	switch {
	case errors.Is(err, supervisor.ErrClosed):
		return &toolError{msg: "tmux-mcp is shutting down", class: "shutting_down",
			hint: "Reconnect once tmux-mcp has been started again."}
	case errors.Is(err, supervisor.ErrResourceExhausted):
		return &toolError{msg: err.Error(), class: "resource_exhausted",
			hint: "Close panes you no longer need (kill_window, kill_session) or raise the limit; server_health shows fds and PTYs in use."}
	case errors.Is(err, supervisor.ErrServerDown):
		return serverDown(err)
	case errors.Is(err, supervisor.ErrTooManyServers):
		return &toolError{msg: err.Error(), class: "too_many_servers",
			hint: "Use a server already supervised (list_servers), or raise --max-servers."}
	}
	var ra RetryAfterError
	if !errors.As(err, &ra) {
		return nil
	}
	class := "unavailable"
	switch {
	case errors.Is(err, supervisor.ErrRestoring):
		// Before ErrRestarting, which it also matches.
		class = "restoring"
	case errors.Is(err, supervisor.ErrRestarting):
		class = "restarting"
	case errors.Is(err, supervisor.ErrRateLimited):
		class = "rate_limited"
	}
	return &toolError{msg: err.Error(), class: class, hint: retryHint(ra.RetryDelay())}
}

// retryHint says when to retry, in tenths of a second rounded up, so that a
// retry at the named time is never early.
func retryHint(d time.Duration) string {
	const tenth = 100 * time.Millisecond
	tenths := max((d+tenth-1)/tenth, 1)
	return fmt.Sprintf("Retry in %d.%ds.", tenths/10, tenths%10)
}

// serverDown maps ErrServerDown: the restart policy gave up. The supervisor's message
// is "tmux server is down (cause): what happened and what to do"; the
// first part is the error, the rest the next step.
func serverDown(err error) *toolError {
	msg := err.Error()
	te := &toolError{msg: msg, class: "server_down",
		hint: "Automatic restarts have stopped; call server_health for the last death cause."}
	const head = "tmux server is down"
	i := strings.Index(msg, head)
	if i < 0 {
		return te
	}
	j := strings.Index(msg[i:], ": ")
	if j < 0 {
		return te
	}
	reason := strings.TrimSpace(msg[i+j+2:])
	if reason == "" {
		return te
	}
	te.msg = msg[:i+j]
	te.hint = strings.ToUpper(reason[:1]) + reason[1:] + ". Call server_health for details."
	return te
}

func orClass(class, alt string) string {
	if class == "" || class == "other" {
		return alt
	}
	return class
}

// errorResult renders a toolError as a tool error result
// (mcpserver.ErrorResult).
func errorResult(te *toolError) *mcp.CallToolResult {
	return mcpserver.ErrorResult(te.msg, te.class, te.hint)
}

// structured returns v as structured content, its JSON as the text.
func structured(v any) (*mcp.CallToolResult, error) {
	b, err := mcpserver.EncodeJSON(v)
	if err != nil {
		return nil, fmt.Errorf("tools: encode result: %w", err)
	}
	return mcp.NewToolResultStructured(json.RawMessage(b), string(b)), nil
}

// message returns a confirmation string as text and as {"result": msg}.
func message(msg string) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultStructured(map[string]any{"result": msg}, msg), nil
}
