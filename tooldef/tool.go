package tooldef

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
)

// Hints are a tool's four annotations. Every tool states them through
// New; a test checks that none is left to mcp-go's defaults. A
// read-only tool states readOnlyHint and openWorldHint only: the MCP
// specification gives destructiveHint and idempotentHint meaning only
// when readOnlyHint is false, and the 47 bytes they cost each read-only
// tool in tools/list went to parameter descriptions. Likewise
// readOnlyHint and idempotentHint are left out when false, their default
// in the specification (22 and 23 bytes on each of the 37 tools that
// write, which went to the listings' filters and limits). destructiveHint
// and openWorldHint are always stated: their default is true, and a
// client that tests for true must still see a kill tool as destructive.
type Hints uint8

// The four annotations.
const (
	ReadOnly Hints = 1 << iota
	Destructive
	Idempotent
	OpenWorld
)

// The presets libtmux-mcp uses, beside Destructive.
const (
	Read         = ReadOnly | Idempotent
	Mutate       = Idempotent
	Create Hints = 0
	// Shell marks tools that type into a pane: what then runs is
	// open-ended.
	Shell = OpenWorld
	// Batch marks the mutating and destructive batches: they may do
	// anything the tools they call do.
	Batch = Destructive | OpenWorld
)

func (h Hints) has(f Hints) bool { return h&f != 0 }

// New builds a tool with a description, explicit annotations, an
// output schema and the input options. Annotations start out unset, so a
// tool cannot inherit mcp-go's defaults by accident.
func New(name, desc string, h Hints, out map[string]any, opts ...mcp.ToolOption) mcp.Tool {
	raw, err := mcpserver.EncodeJSON(out)
	if err != nil {
		panic("tooldef: output schema of " + name + ": " + err.Error())
	}
	all := []mcp.ToolOption{
		mcp.WithToolAnnotation(mcp.ToolAnnotation{}),
		mcp.WithDescription(desc),
		mcp.WithOpenWorldHintAnnotation(h.has(OpenWorld)),
		mcp.WithRawOutputSchema(raw),
	}
	if h.has(ReadOnly) {
		all = append(all, mcp.WithReadOnlyHintAnnotation(true))
	} else {
		all = append(all, mcp.WithDestructiveHintAnnotation(h.has(Destructive)))
	}
	if !h.has(ReadOnly) && h.has(Idempotent) {
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
		panic("tooldef: input schema of " + name + ": " + err.Error())
	}
	t.InputSchema = mcp.ToolInputSchema{}
	return t
}

// InputSchema returns t's input schema: its properties and required names.
func InputSchema(t mcp.Tool) (props map[string]any, required []string) {
	if len(t.RawInputSchema) == 0 {
		return t.InputSchema.Properties, t.InputSchema.Required
	}
	var s struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(t.RawInputSchema, &s); err != nil {
		panic("tooldef: input schema of " + t.Name + ": " + err.Error())
	}
	return s.Properties, s.Required
}

// AnyOf is a schema that accepts any of the JSON types given: one branch
// a type, never a "type" list such as ["integer","null"]. Both say the
// same in JSON Schema, but clients that map tool schemas onto a dialect
// of one type a schema (the OpenAPI subset behind Gemini's function
// declarations) may refuse a list or drop it; the MCP Inspector warns of
// each one.
func AnyOf(types ...string) map[string]any {
	branches := make([]any, len(types))
	for i, t := range types {
		branches[i] = map[string]any{"type": t}
	}
	return map[string]any{"anyOf": branches}
}

// Object is an object schema with the given properties.
func Object(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

// Record is the output schema of a result whose fields are always present
// and mostly of one type: those fields are listed in "required" and typed
// by "additionalProperties" (`"name",` instead of
// `"name":{"type":"string"},`, 17 bytes a field less); the other fields
// are ordinary properties. Validation is as strict as with a property per
// field: every listed field must be present and of its type.
func Record(common map[string]any, fields []string, others map[string]any) map[string]any {
	s := map[string]any{"type": "object", "required": fields}
	if common != nil {
		s["additionalProperties"] = common
	}
	if len(others) > 0 {
		s["properties"] = others
	}
	return s
}

// WithCaller is a record schema s that also lists is_caller. Sessions
// and windows carry is_caller wherever they are returned, but only the
// listings declare it: 12 bytes on each of 14 tools.
func WithCaller(s map[string]any) map[string]any {
	out := maps.Clone(s)
	out["required"] = append(slices.Clone(s["required"].([]string)), "is_caller")
	return out
}
