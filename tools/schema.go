package tools

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
)

// hintSet is a tool's four annotations. Every tool states them through
// newTool; a test checks that none is left to mcp-go's defaults. A
// read-only tool states readOnlyHint and openWorldHint only: the MCP
// specification gives destructiveHint and idempotentHint meaning only
// when readOnlyHint is false, and the 47 bytes they cost each read-only
// tool in tools/list went to parameter descriptions. Likewise
// readOnlyHint and idempotentHint are left out when false, their default
// in the specification (22 and 23 bytes on each of the 37 tools that
// write, which went to the listings' filters and limits). destructiveHint
// and openWorldHint are always stated: their default is true, and a
// client that tests for true must still see a kill tool as destructive.
type hintSet struct {
	readOnly, destructive, idempotent, openWorld bool
}

// The presets libtmux-mcp uses.
var (
	hintsRead        = hintSet{readOnly: true, idempotent: true}
	hintsMutate      = hintSet{idempotent: true}
	hintsCreate      = hintSet{}
	hintsDestructive = hintSet{destructive: true}
	// hintsShell marks tools that type into a pane: what then runs is
	// open-ended.
	hintsShell = hintSet{openWorld: true}
	// hintsBatch marks the mutating and destructive batches: they may do
	// anything the tools they call do.
	hintsBatch = hintSet{destructive: true, openWorld: true}
)

// newTool builds a tool with a description, explicit annotations, an
// output schema and the input options. Annotations start out unset, so a
// tool cannot inherit mcp-go's defaults by accident.
func newTool(name, desc string, h hintSet, out map[string]any, opts ...mcp.ToolOption) mcp.Tool {
	raw, err := mcpserver.EncodeJSON(out)
	if err != nil {
		panic("tools: output schema of " + name + ": " + err.Error())
	}
	all := []mcp.ToolOption{
		mcp.WithToolAnnotation(mcp.ToolAnnotation{}),
		mcp.WithDescription(desc),
		mcp.WithOpenWorldHintAnnotation(h.openWorld),
		mcp.WithRawOutputSchema(raw),
	}
	if h.readOnly {
		all = append(all, mcp.WithReadOnlyHintAnnotation(true))
	} else {
		all = append(all, mcp.WithDestructiveHintAnnotation(h.destructive))
	}
	if !h.readOnly && h.idempotent {
		all = append(all, mcp.WithIdempotentHintAnnotation(true))
	}
	t := mcp.NewTool(name, append(all, opts...)...)
	// mcp-go writes "required":[] when nothing is required; agents pay for
	// those bytes on every tool, so the input schema goes out raw.
	in := map[string]any{"type": "object", "properties": t.InputSchema.Properties}
	if len(t.InputSchema.Required) > 0 {
		in["required"] = t.InputSchema.Required
	}
	if t.RawInputSchema, err = mcpserver.EncodeJSON(in); err != nil {
		panic("tools: input schema of " + name + ": " + err.Error())
	}
	t.InputSchema = mcp.ToolInputSchema{}
	return t
}

// inputSchema returns t's input schema: its properties and required names.
func inputSchema(t mcp.Tool) (props map[string]any, required []string) {
	if len(t.RawInputSchema) == 0 {
		return t.InputSchema.Properties, t.InputSchema.Required
	}
	var s struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(t.RawInputSchema, &s); err != nil {
		panic("tools: input schema of " + t.Name + ": " + err.Error())
	}
	return s.Properties, s.Required
}

// Output schema building blocks. Descriptions are left out: the field
// names are libtmux-mcp's and speak for themselves, and agents pay for
// every byte of tools/list.
var (
	tString  = map[string]any{"type": "string"}
	tInt     = map[string]any{"type": "integer"}
	tBool    = map[string]any{"type": "boolean"}
	tStrNull = anyOf("string", "null")
	tStrings = map[string]any{"type": "array", "items": tString}
	tIntNull = anyOf("integer", "null")
	// tField is the common type of a record of mixed fields: none. The
	// record lists every field by name and leaves their types to the
	// result (a property per field would cost 20 to 40 bytes more each,
	// and a union of four types 67 bytes a tool that parameter
	// descriptions need more). Nullable fields stay properties.
	tField map[string]any
)

// anyOf is a schema that accepts any of the JSON types given: one branch
// a type, never a "type" list such as ["integer","null"]. Both say the
// same in JSON Schema, but clients that map tool schemas onto a dialect
// of one type a schema (the OpenAPI subset behind Gemini's function
// declarations) may refuse a list or drop it; the MCP Inspector warns of
// each one.
func anyOf(types ...string) map[string]any {
	branches := make([]any, len(types))
	for i, t := range types {
		branches[i] = map[string]any{"type": t}
	}
	return map[string]any{"anyOf": branches}
}

// object is an object schema with the given properties.
func object(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

// record is the output schema of a result whose fields are always present
// and mostly of one type: those fields are listed in "required" and typed
// by "additionalProperties" (`"name",` instead of
// `"name":{"type":"string"},`, 17 bytes a field less); the other fields
// are ordinary properties. Validation is as strict as with a property per
// field: every listed field must be present and of its type.
func record(common map[string]any, fields []string, others map[string]any) map[string]any {
	s := map[string]any{"type": "object", "required": fields}
	if common != nil {
		s["additionalProperties"] = common
	}
	if len(others) > 0 {
		s["properties"] = others
	}
	return s
}

// messageSchema is the output of tools that return a confirmation string:
// {"result": "..."}.
var messageSchema = object(map[string]any{"result": tString})

// The libtmux-mcp models, by field name: every field listed is present.
// Their types (strings as tmux formats give them, but for window_count,
// pane_count, the pane's geometry and is_caller; models.go) are not
// spelled out: they cost 40 to 170 bytes on each of the 23 tools that
// return a model, and output schemas are for a client's checks, not the
// model's context. The parameter descriptions got those bytes.
var sessionSchema = record(nil,
	[]string{"session_id", "session_name", "session_attached", "session_created", "active_pane_id", "window_count"}, nil)

var windowSchema = record(nil,
	[]string{"window_id", "window_name", "window_index", "session_id", "session_name", "window_layout",
		"window_active", "window_width", "window_height", "active_pane_id", "pane_count"}, nil)

// withCaller is a record schema s that also lists is_caller. Sessions
// and windows carry is_caller wherever they are returned, but only the
// listings declare it: 12 bytes on each of 14 tools.
func withCaller(s map[string]any) map[string]any {
	out := maps.Clone(s)
	out["required"] = append(slices.Clone(s["required"].([]string)), "is_caller")
	return out
}

// paneSchema leaves the geometry out (pane_left, pane_top, pane_right,
// pane_bottom, pane_at_left, ...: always present too), 120 bytes on each
// of the 11 tools that return a pane.
var paneSchema = record(nil,
	[]string{"pane_id", "pane_index", "pane_width", "pane_height", "pane_tty", "pane_current_command",
		"pane_current_path", "pane_pid", "pane_title", "pane_active", "window_id", "session_id", "is_caller"}, nil)

// serverInfoSchema types its three nullable strings once, as a record's
// common type; refused says why a socket was not probed (list_servers).
var serverInfoSchema = record(tStrNull, []string{"socket_name", "socket_path", "version"},
	map[string]any{"is_alive": tBool, "session_count": tInt, "refused": tString})
