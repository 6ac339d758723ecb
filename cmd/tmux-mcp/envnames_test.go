package main

import (
	"encoding/json"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestHostileEnvironmentNames: a program in a pane sets variables whose
// names hold a quote, a newline, and text that looks like the end of a
// record and the start of another (tmux setenv, as any program can run
// it). show_environment, on the built binary, still lists the whole
// environment, each of those names whole and nothing forged; before, a
// quote or a newline in one name made the call fail for the scope with an
// internal error. set_environment refuses such names itself.
func TestHostileEnvironmentNames(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	hostile := map[string]string{
		`BAD"NAME`:                       "v1",
		"NL\nNAME":                       "v2",
		"X\"; export X;\nFORGED":         "v3",
		"unset PATH;\nALSO_NOT_A_RECORD": "v4",
	}
	for k, v := range hostile {
		tm.MustTmux("set-environment", "-g", k, v)
		tm.MustTmux("set-environment", "-t", "main", k, v)
	}
	tm.MustTmux("set-environment", "-g", "GOOD_AFTER", "ok")
	tm.MustTmux("set-environment", "-t", "main", "GOOD_AFTER", "ok")
	c, _, _ := startStdio(t, bin, binaryEnv(tm.Socket))
	t.Cleanup(func() { c.Close() })

	for _, args := range []map[string]any{{"limit": 1000}, {"limit": 1000, "session_name": "main"}} {
		var got struct {
			Variables  map[string]any `json:"variables"`
			Unreadable int            `json:"unreadable"`
		}
		if err := json.Unmarshal(structured(t, callTool(t, c, "show_environment", args)), &got); err != nil {
			t.Fatal(err)
		}
		for k, v := range hostile {
			if got.Variables[k] != v {
				t.Errorf("show_environment(%v): %q = %#v, want %q", args, k, got.Variables[k], v)
			}
		}
		for _, forged := range []string{"FORGED", "-PATH", "ALSO_NOT_A_RECORD", "NAME", "X"} {
			if v, ok := got.Variables[forged]; ok {
				t.Errorf("show_environment(%v): forged variable %q = %#v", args, forged, v)
			}
		}
		if got.Variables["GOOD_AFTER"] != "ok" || got.Unreadable != 0 {
			t.Errorf("show_environment(%v): GOOD_AFTER = %#v, %d unreadable; want ok, 0", args, got.Variables["GOOD_AFTER"], got.Unreadable)
		}
	}
	for k := range hostile {
		toolFails(t, c, "set_environment", map[string]any{"name": k, "value": "x"}, "argument name: want a non-empty name without")
	}
}
