package mcpserver

import "fmt"

// The resources: libtmux-mcp's six templates, tmux://jobs/{job_id} and
// tmux://health. The tool layer serves them (its handlers read tmux);
// subscriptions and completions know them by these addresses.
const (
	URISessions       = "tmux://sessions{?socket_name}"
	URISession        = "tmux://sessions/{session_name}{?socket_name}"
	URISessionWindows = "tmux://sessions/{session_name}/windows{?socket_name}"
	URIWindow         = "tmux://sessions/{session_name}/windows/{window_index}{?socket_name}"
	URIPane           = "tmux://panes/{pane_id}{?socket_name}"
	URIPaneContent    = "tmux://panes/{pane_id}/content{?socket_name}"
	URIHealth         = "tmux://health"
	URIJob            = "tmux://jobs/{job_id}"
)

// ResourceError is a resource read that failed because its object does
// not exist; the message is libtmux-mcp's.
type ResourceError struct{ msg string }

func (e *ResourceError) Error() string { return e.msg }

// ResourceNotFound is the ResourceError of the formatted message.
func ResourceNotFound(format string, a ...any) error {
	return &ResourceError{msg: fmt.Sprintf(format, a...)}
}

// Vars are a template's matched variables, already percent-decoded (mcp-go
// passes []string).
type Vars map[string]any

// Get returns the variable name, "" when it is not set.
func (v Vars) Get(name string) string {
	var s string
	switch x := v[name].(type) {
	case []string:
		if len(x) > 0 {
			s = x[0]
		}
	case string:
		s = x
	}
	return s
}
