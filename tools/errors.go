package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// toolError is a failure the caller can act on. It becomes a tool error
// result: "<msg> [<class>]\n<hint>", with the class and hint in _meta too.
type toolError struct {
	msg   string
	class string // tmux.ClassName, "argument", "not_found", "refused"
	hint  string
}

func (e *toolError) Error() string { return e.msg }

// argError reports a bad argument. It names the argument and what is
// accepted and never echoes the value.
func argError(name, format string, a ...any) error {
	return &toolError{msg: "argument " + name + ": " + fmt.Sprintf(format, a...), class: "argument"}
}

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
	if errors.Is(err, context.Canceled) || errors.Is(err, supervisor.ErrClosed) {
		return nil
	}
	var ra RetryAfterError
	if errors.As(err, &ra) {
		return &toolError{msg: err.Error(), class: orClass(tmux.ClassName(err), "unavailable"),
			hint: fmt.Sprintf("Retry in %.1fs.", ra.RetryDelay().Seconds())}
	}
	class := tmux.ClassName(err)
	switch {
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

func orClass(class, alt string) string {
	if class == "" || class == "other" {
		return alt
	}
	return class
}

// errorResult renders a toolError the way libtmux-mcp does (message, then
// the suggestion on its own line), with the class in brackets.
func errorResult(te *toolError) *mcp.CallToolResult {
	text := te.msg
	if te.class != "" {
		text += " [" + te.class + "]"
	}
	if te.hint != "" {
		text += "\n" + te.hint
	}
	res := mcp.NewToolResultError(text)
	meta := map[string]any{"error_type": te.class, "expected": true}
	if te.hint != "" {
		meta["suggestion"] = te.hint
	}
	res.Meta = mcp.NewMetaFromMap(meta)
	return res
}

// structured returns v as structured content, its JSON as the text.
func structured(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("tools: encode result: %w", err)
	}
	return mcp.NewToolResultStructured(json.RawMessage(b), string(b)), nil
}

// list wraps items as {"result": items}.
func list[T any](items []T) (*mcp.CallToolResult, error) {
	if items == nil {
		items = []T{}
	}
	return structured(struct {
		Result []T `json:"result"`
	}{items})
}

// message returns a confirmation string as text and as {"result": msg}.
func message(msg string) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultStructured(map[string]any{"result": msg}, msg), nil
}
