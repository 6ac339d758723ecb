package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// constraining are the JSON Schema keywords that say something about a
// value; a schema with none of them accepts anything.
var constraining = []string{"type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "required", "$ref",
	"properties", "additionalProperties", "items", "pattern", "minimum", "maximum", "format"}

// TestSchemasPortable walks every tool's input and output schema as
// tools/list sends them and fails on what the MCP Inspector (2.12, its
// schema lint) reports as a portability warning: a "type" that is a list
// (["integer","null"]: clients that map schemas onto one type a schema,
// such as Gemini's function declarations, refuse it or drop it; anyOf
// says the same), and a schema that constrains nothing ({}).
func TestSchemasPortable(t *testing.T) {
	for _, e := range Catalog(Deps{}) {
		b, err := json.Marshal(e.Tool)
		if err != nil {
			t.Fatal(err)
		}
		var tool struct {
			InputSchema  any `json:"inputSchema"`
			OutputSchema any `json:"outputSchema"`
		}
		if err := json.Unmarshal(b, &tool); err != nil {
			t.Fatal(err)
		}
		checkPortable(t, e.Tool.Name+".inputSchema", tool.InputSchema)
		checkPortable(t, e.Tool.Name+".outputSchema", tool.OutputSchema)
	}
}

// checkPortable fails if schema s, or one nested in it, has a list of
// types or no constraining keyword.
func checkPortable(t *testing.T, path string, s any) {
	t.Helper()
	m, ok := s.(map[string]any)
	if !ok {
		t.Errorf("%s: schema is %T, want an object", path, s)
		return
	}
	if typ, ok := m["type"].([]any); ok {
		t.Errorf("%s: type is a list %v; write anyOf, one type a branch", path, typ)
	}
	if !slices.ContainsFunc(constraining, func(k string) bool { _, ok := m[k]; return ok }) {
		t.Errorf("%s: the schema constrains nothing; say what the value is", path)
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		if sub, ok := m[k].(map[string]any); ok {
			checkPortable(t, path+"."+k, sub)
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for k, p := range props {
			checkPortable(t, fmt.Sprintf("%s.properties.%s", path, k), p)
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if branches, ok := m[k].([]any); ok {
			for i, b := range branches {
				checkPortable(t, fmt.Sprintf("%s.%s[%d]", path, k, i), b)
			}
		}
	}
}
