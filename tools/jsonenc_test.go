package tools

import (
	"strings"
	"testing"
)

// htmlLine is pane text with every character json.Marshal escapes for
// HTML.
const htmlLine = `<div class="x">a && b -> c</div>`

// TestResultsAreNotHTMLEscaped reads a pane that prints htmlLine through
// every tool that returns pane text: the text a model reads has <, > and
// & as the pane printed them, not \u003c, \u003e, \u0026.
func TestResultsAreNotHTMLEscaped(t *testing.T) {
	e := newEnv(t, Readonly)
	// Printed again and again, so that a wait started at any time sees it
	// as new output.
	p := e.window(`while :; do echo '` + htmlLine + `'; sleep 0.2; done`)
	e.waitScreen(p, "the HTML line", func(s string) bool { return strings.Contains(s, htmlLine) })
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"capture_pane", map[string]any{"pane_id": p}},
		{"snapshot_pane", map[string]any{"pane_id": p}},
		{"capture_since", map[string]any{"pane_id": p}},
		{"wait_for_text", map[string]any{"pane_id": p, "patterns": []any{"c</div>"}}},
		{"search_panes", map[string]any{"pattern": "a && b"}},
		{"call_readonly_tools_batch", map[string]any{"operations": []any{
			map[string]any{"tool": "capture_pane", "arguments": map[string]any{"pane_id": p}}}}},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			got := text(e.ok(tt.tool, tt.args, nil))
			for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
				if strings.Contains(got, esc) {
					t.Errorf("%s text has %s: %.300s", tt.tool, esc, got)
				}
			}
			if !strings.Contains(got, "a && b -> c</div>") {
				t.Errorf("%s text lacks %q: %.300s", tt.tool, htmlLine, got)
			}
		})
	}
}
