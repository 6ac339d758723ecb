package tools

import "github.com/tmux-mcp/tmux-mcp/tooldef"

// Output schema building blocks. Descriptions are left out: the field
// names are libtmux-mcp's and speak for themselves, and agents pay for
// every byte of tools/list.
var (
	tString  = map[string]any{"type": "string"}
	tInt     = map[string]any{"type": "integer"}
	tBool    = map[string]any{"type": "boolean"}
	tStrNull = tooldef.AnyOf("string", "null")
	tStrings = map[string]any{"type": "array", "items": tString}
	tIntNull = tooldef.AnyOf("integer", "null")
	// tField is the common type of a record of mixed fields: none. The
	// record lists every field by name and leaves their types to the
	// result (a property per field would cost 20 to 40 bytes more each,
	// and a union of four types 67 bytes a tool that parameter
	// descriptions need more). Nullable fields stay properties.
	tField map[string]any
)

// messageSchema is the output of tools that return a confirmation string:
// {"result": "..."}.
var messageSchema = tooldef.Object(map[string]any{"result": tString})

// The libtmux-mcp models, by field name: every field listed is present.
// Their types (strings as tmux formats give them, but for window_count,
// pane_count, the pane's geometry and is_caller; models.go) are not
// spelled out: they cost 40 to 170 bytes on each of the 23 tools that
// return a model, and output schemas are for a client's checks, not the
// model's context. The parameter descriptions got those bytes.
var sessionSchema = tooldef.Record(nil,
	[]string{"session_id", "session_name", "session_attached", "session_created", "active_pane_id", "window_count"}, nil)

var windowSchema = tooldef.Record(nil,
	[]string{"window_id", "window_name", "window_index", "session_id", "session_name", "window_layout",
		"window_active", "window_width", "window_height", "active_pane_id", "pane_count"}, nil)

// paneSchema leaves the geometry out (pane_left, pane_top, pane_right,
// pane_bottom, pane_at_left, ...: always present too), 120 bytes on each
// of the 11 tools that return a pane.
var paneSchema = tooldef.Record(nil,
	[]string{"pane_id", "pane_index", "pane_width", "pane_height", "pane_tty", "pane_current_command",
		"pane_current_path", "pane_pid", "pane_title", "pane_active", "window_id", "session_id", "is_caller"}, nil)

// serverInfoSchema types its three nullable strings once, as a record's
// common type; refused says why a socket was not probed (list_servers).
var serverInfoSchema = tooldef.Record(tStrNull, []string{"socket_name", "socket_path", "version"},
	map[string]any{"is_alive": tBool, "session_count": tInt, "refused": tString})

// serversSchema is list_servers': a server also counts the panes running
// each agent CLI, and says whose it is (owner, an agent team's: a string,
// typed by the record's common type).
var serversSchema = tooldef.Record(tStrNull, []string{"socket_name", "socket_path", "version"},
	map[string]any{"is_alive": tBool, "session_count": tInt, "refused": tString, "agents": map[string]any{"type": "object"}})
