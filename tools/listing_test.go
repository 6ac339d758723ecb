package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestListingsSayWhatWasLeftOut checks that each listing applies its
// filters, cuts to its limit, says how many matched and how many were
// left out, and, when some were, says in a second text block how to see
// them.
func TestListingsSayWhatWasLeftOut(t *testing.T) {
	e := newEnv(t, Mutating)
	for i := range 3 {
		e.tmux("new-session", "-d", "-s", fmt.Sprintf("extra%d", i))
	}
	e.tmux("set-environment", "-g", "LISTING_A", "1")
	e.tmux("set-environment", "-g", "LISTING_B", "2")
	tests := []struct {
		tool          string
		args          map[string]any
		items         string // the key of the items
		wantItems     int
		matched       int
		leftOut       int
		hintFragments []string
	}{
		{"list_sessions", nil, "result", 4, 4, 0, nil},
		{"list_sessions", map[string]any{"limit": 2}, "result", 2, 4, 2, []string{"2 of 4 matched left out", "raise limit"}},
		{"list_sessions", map[string]any{"limit": 2, "filters": map[string]any{"session_name__startswith": "extra"}},
			"result", 2, 3, 1, []string{"1 of 3 matched left out"}},
		{"list_windows", map[string]any{"limit": 1}, "result", 1, 4, 3, []string{"3 of 4"}},
		{"list_panes", map[string]any{"filters": map[string]any{"session_id": "$999"}}, "result", 0, 0, 0, nil},
		{"list_panes", map[string]any{"limit": 3}, "result", 3, 4, 1, []string{"scope by window or session"}},
		{"show_environment", map[string]any{"filters": map[string]any{"name__startswith": "LISTING_"}, "limit": 1},
			"variables", 1, 2, 1, []string{"1 of 2"}},
		{"show_hooks", map[string]any{"filters": map[string]any{"hook_name": "nope"}}, "entries", 0, 0, 0, nil},
		{"list_jobs", map[string]any{"filters": map[string]any{"state": "running"}}, "jobs", 0, 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %v", tt.tool, tt.args), func(t *testing.T) {
			res := e.ok(tt.tool, tt.args, nil)
			var got map[string]json.RawMessage
			if err := json.Unmarshal(structuredJSON(t, res), &got); err != nil {
				t.Fatal(err)
			}
			var n int
			var items any
			if err := json.Unmarshal(got[tt.items], &items); err != nil {
				t.Fatalf("%s: %v", tt.items, err)
			}
			switch x := items.(type) {
			case []any:
				n = len(x)
			case map[string]any:
				n = len(x)
			}
			var matched, leftOut int
			_ = json.Unmarshal(got["matched"], &matched)
			_ = json.Unmarshal(got["left_out"], &leftOut)
			if n != tt.wantItems || matched != tt.matched || leftOut != tt.leftOut {
				t.Errorf("%d items, matched %d, left_out %d; want %d, %d, %d", n, matched, leftOut, tt.wantItems, tt.matched, tt.leftOut)
			}
			switch {
			case len(tt.hintFragments) == 0 && len(res.Content) != 1:
				t.Errorf("%d content blocks, want 1 (nothing left out)", len(res.Content))
			case len(tt.hintFragments) > 0 && len(res.Content) != 2:
				t.Errorf("%d content blocks, want 2 (the JSON and the hint)", len(res.Content))
			}
			for _, f := range tt.hintFragments {
				if !strings.Contains(text(res), f) {
					t.Errorf("text %q does not contain %q", text(res), f)
				}
			}
		})
	}
	// Filters on the environment see names only: values stay unread.
	e.fails("show_environment", map[string]any{"filters": map[string]any{"value": "1"}}, "Invalid filter field 'value'")
}
