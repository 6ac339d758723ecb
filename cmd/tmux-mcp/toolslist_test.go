package main

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// listedTool is a tools/list entry as a client reads it.
type listedTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	} `json:"inputSchema"`
}

// listTools returns the tools the binary lists.
func listTools(t *testing.T, r *wireClient) []listedTool {
	t.Helper()
	l, _ := r.request("tools/list", map[string]any{})
	var resp struct {
		Result struct {
			Tools []listedTool `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(l), &resp); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	return resp.Result.Tools
}

// TestToolsListHasNoTypeUnions drives the built binary: no parameter of
// any tool is typed as a union (["object","string"], ["string","integer"]),
// which some clients refuse, and the forms the unions allowed still work:
// filters and environment as JSON text, split_window's size as a number.
func TestToolsListHasNoTypeUnions(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	cmd := exec.Command(bin, "serve")
	cmd.Env = binaryEnv(tm.Socket, "TMUX_MCP_SAFETY=destructive")
	r := startWire(t, cmd)
	r.initialize()
	tools := listTools(t, r)
	if len(tools) < 50 {
		t.Fatalf("tools/list has %d tools, want them all", len(tools))
	}
	for _, tool := range tools {
		for name, raw := range tool.InputSchema.Properties {
			var p struct {
				Type any `json:"type"`
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatal(err)
			}
			if _, one := p.Type.(string); !one {
				t.Errorf("%s.%s: type %v, want one type", tool.Name, name, p.Type)
			}
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_sessions", map[string]any{"filters": `{"session_name": "main"}`}, `"session_name":"main"`},
		{"create_session", map[string]any{"session_name": "envtext", "environment": `{"E2E_VAR": "1"}`}, `"session_name":"envtext"`},
		{"split_window", map[string]any{"session_name": "main", "size": 5}, `"pane_height":"5"`},
	} {
		if _, res := r.call(c.tool, c.args); res.IsError || !strings.Contains(string(res.Structured), c.want) {
			t.Errorf("%s(%v) = %s %s, want %s", c.tool, c.args, res.Structured, res.text(), c.want)
		}
	}
}

// TestToolsetsCoreOverStdio: a client with a tool cap (Cursor has cut at
// 40, alphabetically) is served `--toolsets core`: the built binary lists
// few enough tools, and the waits and sends among them.
func TestToolsetsCoreOverStdio(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = binaryEnv(tm.Socket, "TMUX_MCP_SAFETY=destructive", "TMUX_MCP_TOOLSETS=core")
	r := startWire(t, cmd)
	r.initialize()
	var names []string
	for _, tool := range listTools(t, r) {
		names = append(names, tool.Name)
	}
	if len(names) > 40 {
		t.Errorf("core lists %d tools, want at most 40: %v", len(names), names)
	}
	for _, want := range []string{"send_keys", "send_keys_batch", "run_command", "wait_for_text", "snapshot_pane",
		"split_window", "server_health"} {
		if !slices.Contains(names, want) {
			t.Errorf("core lacks %s: %v", want, names)
		}
	}
}

// TestToolsListDescribesEveryParameter drives the built binary with
// --max-wait 12s: every parameter of every tool has a description,
// wait_for_text's timeout gives its default and the configured ceiling,
// and wait_for_text says what counts as a match.
func TestToolsListDescribesEveryParameter(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = binaryEnv(tm.Socket, "TMUX_MCP_SAFETY=destructive", "TMUX_MCP_MAX_WAIT=12s")
	r := startWire(t, cmd)
	r.initialize()
	for _, tool := range listTools(t, r) {
		for name, raw := range tool.InputSchema.Properties {
			var p struct {
				Description string `json:"description"`
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(p.Description) == "" {
				t.Errorf("%s.%s: no description", tool.Name, name)
			}
			if tool.Name == "wait_for_text" && name == "timeout" && p.Description != "default 8, max 12" {
				t.Errorf("wait_for_text.timeout: %q, want default 8, max 12", p.Description)
			}
		}
		if tool.Name == "wait_for_text" && (!strings.Contains(tool.Description, "since your last send to the pane (else this call)") ||
			!strings.Contains(tool.Description, "never matches") || !strings.Contains(tool.Description, "trailing blanks")) {
			t.Errorf("wait_for_text does not say what counts as a match: %q", tool.Description)
		}
	}
}
