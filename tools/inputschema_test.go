package tools

import (
	"fmt"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// TestInputSchemasDeclareOneType walks every tool's input schema: each
// property, array item and nested object has exactly one JSON type. Some
// clients refuse unions such as ["object", "string"] (Gemini's API answers
// 400); the other forms a parameter accepts are accepted at run time.
func TestInputSchemasDeclareOneType(t *testing.T) {
	for _, e := range Catalog(Deps{}) {
		props, _ := tooldef.InputSchema(e.Tool)
		for name, p := range props {
			checkOneType(t, e.Tool.Name+"."+name, p)
		}
	}
}

// checkOneType fails if schema s, or one nested in it, has no type or a
// list of types.
func checkOneType(t *testing.T, path string, s any) {
	t.Helper()
	m, ok := s.(map[string]any)
	if !ok {
		t.Errorf("%s: schema is %T, want an object", path, s)
		return
	}
	if typ, ok := m["type"].(string); !ok || typ == "" {
		t.Errorf("%s: type %v, want one type", path, m["type"])
	}
	if items, ok := m["items"]; ok {
		checkOneType(t, path+"[]", items)
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for k, p := range props {
			checkOneType(t, fmt.Sprintf("%s.%s", path, k), p)
		}
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok {
		checkOneType(t, path+".*", ap)
	}
}
