package tools

import (
	"slices"
	"testing"
)

// cursorCap is the most tools Cursor has handed to the model.
const cursorCap = 40

// paneDrivers are the tools a capped client must keep: the waits and the
// sends (the ones an alphabetical cut at 40 lost), and reading panes.
var paneDrivers = []string{"send_keys", "send_keys_batch", "run_command", "wait_for_text", "capture_pane",
	"snapshot_pane", "split_window", "server_health"}

func TestToolsetsCorePreset(t *testing.T) {
	all := Catalog(Deps{})
	names := map[string]bool{}
	for _, e := range all {
		names[e.Tool.Name] = true
	}
	for _, n := range presets["core"] {
		if !names[n] {
			t.Errorf("preset core names %s, which is not a tool", n)
		}
	}
	for tier := Readonly; tier <= Destructive; tier++ {
		sel := Select(all, tier, []string{"core"})
		if len(sel) > cursorCap {
			t.Errorf("core at %s: %d tools, want at most %d", tier, len(sel), cursorCap)
		}
		var got []string
		for _, e := range sel {
			got = append(got, e.Tool.Name)
		}
		for _, want := range paneDrivers {
			if tier >= Mutating || slices.Contains([]string{"wait_for_text", "capture_pane", "snapshot_pane", "server_health"}, want) {
				if !slices.Contains(got, want) {
					t.Errorf("core at %s lacks %s: %v", tier, want, got)
				}
			}
		}
	}
}

func TestParseToolsetsWithPreset(t *testing.T) {
	sets, err := ParseToolsets(" core,option ")
	if err != nil || !slices.Equal(sets, []string{"core", "option"}) {
		t.Fatalf("ParseToolsets = %v, %v; want [core option]", sets, err)
	}
	sel := Select(Catalog(Deps{}), Mutating, sets)
	var got []string
	for _, e := range sel {
		got = append(got, e.Tool.Name)
	}
	for _, want := range []string{"set_option", "show_hooks", "wait_for_text", "send_keys"} {
		if !slices.Contains(got, want) {
			t.Errorf("core,option lacks %s: %v", want, got)
		}
	}
	if slices.Contains(got, "load_buffer") {
		t.Errorf("core,option serves load_buffer (group buffer): %v", got)
	}
	if _, err := ParseToolsets("core,nope"); err == nil {
		t.Errorf("ParseToolsets(core,nope) accepted an unknown toolset")
	}
}
