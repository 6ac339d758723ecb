package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// TestEveryParameterIsDescribed: every parameter of every tool has a
// description, and every number (timeouts, intervals) says its default or
// its ceiling.
func TestEveryParameterIsDescribed(t *testing.T) {
	for _, e := range Catalog(Deps{}) {
		props, _ := tooldef.InputSchema(e.Tool)
		for name, v := range props {
			p, _ := v.(map[string]any)
			desc, _ := p["description"].(string)
			if strings.TrimSpace(desc) == "" {
				t.Errorf("%s.%s: no description", e.Tool.Name, name)
				continue
			}
			if p["type"] == "number" && !strings.Contains(desc, "default") && !strings.Contains(desc, "max") {
				t.Errorf("%s.%s: %q says neither its default nor its ceiling", e.Tool.Name, name, desc)
			}
		}
	}
}

// TestParamDocsNameRealParameters: no entry of paramDocs is stale, and
// the placeholders are filled from the Deps.
func TestParamDocsNameRealParameters(t *testing.T) {
	all := Catalog(Deps{MaxWait: 12 * time.Second})
	used := map[string]bool{}
	for _, e := range all {
		props, _ := tooldef.InputSchema(e.Tool)
		for name, v := range props {
			used[name], used[e.Tool.Name+"."+name] = true, true
			desc, _ := v.(map[string]any)["description"].(string)
			for _, ph := range []string{"{max_wait}", "{capture_lines}", "{max_capture_lines}"} {
				if strings.Contains(desc, ph) {
					t.Errorf("%s.%s: placeholder left in %q", e.Tool.Name, name, desc)
				}
			}
		}
	}
	for key := range paramDocs {
		if !used[key] {
			t.Errorf("paramDocs[%q] describes no parameter", key)
		}
	}
	for _, e := range all {
		if e.Tool.Name != "wait_for_text" {
			continue
		}
		props, _ := tooldef.InputSchema(e.Tool)
		if got := props["timeout"].(map[string]any)["description"]; got != "default 8, max 12" {
			t.Errorf("wait_for_text.timeout with --max-wait 12s: %q, want default 8, max 12", got)
		}
	}
}
