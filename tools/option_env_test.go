package tools

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

func TestEnvironment(t *testing.T) {
	e := newEnv(t, Mutating)
	var set map[string]string
	e.ok("set_environment", map[string]any{"name": "MCP_TEST_VAR", "value": "test value; $HOME #{x}\nline 2"}, &set)
	if set["status"] != "set" || set["name"] != "MCP_TEST_VAR" {
		t.Errorf("set_environment = %v, want status set", set)
	}
	env, skipped := tmux.ParseEnvironment([]byte(e.tmux("show-environment", "-s", "-g", "MCP_TEST_VAR")))
	if got := env["MCP_TEST_VAR"]; skipped != 0 || got == nil || *got != "test value; $HOME #{x}\nline 2" {
		t.Errorf("tmux global environment: got %v, %d skipped", got, skipped)
	}
	e.tmux("set-environment", "-g", "-r", "GONE_VAR")
	var global envResult
	e.ok("show_environment", nil, &global)
	if got := global.Variables["MCP_TEST_VAR"]; got != "test value; $HOME #{x}\nline 2" {
		t.Errorf("show_environment: MCP_TEST_VAR = %#v", got)
	}
	if got := global.Variables["-GONE_VAR"]; got != true {
		t.Errorf("show_environment: -GONE_VAR = %#v, want true (removed)", got)
	}

	e.ok("set_environment", map[string]any{"name": "SESSION_ONLY", "value": "1", "session_name": "main"}, nil)
	if got := e.tmux("show-environment", "-t", "main", "SESSION_ONLY"); got != "SESSION_ONLY=1" {
		t.Errorf("session environment: got %q, want SESSION_ONLY=1", got)
	}
	var sess envResult
	e.ok("show_environment", map[string]any{"session_name": "main"}, &sess)
	e.ok("show_environment", nil, &global)
	if sess.Variables["SESSION_ONLY"] != "1" || global.Variables["SESSION_ONLY"] != nil {
		t.Errorf("SESSION_ONLY: session %#v, global %#v; want 1 and absent", sess.Variables["SESSION_ONLY"], global.Variables["SESSION_ONLY"])
	}

	for _, name := range []string{"A=B", `A"B`, "A\nB", "A;B", "A\x1bB", ""} {
		e.fails("set_environment", map[string]any{"name": name, "value": "x"}, "argument name: want a non-empty name without '='")
	}
	e.fails("create_session", map[string]any{"environment": map[string]any{`Q"`: "x"}}, "argument environment: names: want a non-empty name")
	got := e.fails("set_environment", map[string]any{"name": "X", "value": "s3cret\x00"}, "argument value: contains NUL")
	if strings.Contains(got, "s3cret") {
		t.Errorf("error %q echoes the value", got)
	}
	e.fails("set_environment", map[string]any{"name": "X"}, "argument value: required")
	e.fails("show_environment", map[string]any{"session_name": "nope"}, "Object not found: session_name=nope")
}

// TestShowEnvironmentHidesValuesWhenReadonly: the global environment is
// tmux-mcp's own; at the readonly tier show_environment names variables
// without their values.
func TestShowEnvironmentHidesValuesWhenReadonly(t *testing.T) {
	e := newEnv(t, Readonly)
	e.tmux("set-environment", "-g", "TMCP_TOKEN", "s3cret")
	e.tmux("set-environment", "-t", "main", "TMCP_SESSION_TOKEN", "s3cret2")
	e.tmux("set-environment", "-g", "-r", "TMCP_GONE")
	for _, args := range []map[string]any{nil, {"session_name": "main"}} {
		var got struct {
			Variables    map[string]any `json:"variables"`
			ValuesHidden bool           `json:"values_hidden"`
		}
		res := e.ok("show_environment", args, &got)
		if strings.Contains(text(res), "s3cret") {
			t.Errorf("show_environment(%v) at the readonly tier shows a value: %s", args, text(res))
		}
		if !got.ValuesHidden || len(got.Variables) == 0 {
			t.Errorf("show_environment(%v) = %+v, want names with values hidden", args, got)
		}
		for name, v := range got.Variables {
			if v != nil && v != true {
				t.Errorf("show_environment(%v): %s = %#v, want null", args, name, v)
			}
		}
	}
	var global struct {
		Variables map[string]any `json:"variables"`
	}
	e.ok("show_environment", nil, &global)
	if v, ok := global.Variables["TMCP_TOKEN"]; !ok || v != nil {
		t.Errorf("TMCP_TOKEN = %#v (listed %v), want listed with a null value", v, ok)
	}
	if global.Variables["-TMCP_GONE"] != true {
		t.Errorf("-TMCP_GONE = %#v, want true (removed)", global.Variables["-TMCP_GONE"])
	}
	m := newEnvOn(t, e, Mutating, Caller{})
	m.ok("show_environment", nil, &global)
	if global.Variables["TMCP_TOKEN"] != "s3cret" {
		t.Errorf("at the mutating tier TMCP_TOKEN = %#v, want s3cret", global.Variables["TMCP_TOKEN"])
	}
}
