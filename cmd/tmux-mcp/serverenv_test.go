package main

import (
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestServerInheritsNoSecrets is issue 29's second secret leak, on the
// built binary: tmux-mcp, started with its HTTP token, an API key and
// OpenTelemetry headers in its environment (the README's Codex set-up
// puts TMUX_MCP_HTTP_TOKEN there), starts its tmux server. None of them is
// in the server's global environment (tmux's own show-environment -g),
// in the server process's environment, in a new pane's (env, run in it),
// or in what show_environment returns at the mutating tier, where values
// are shown. What the allow-list keeps (HOME, PATH) and what --pass-env
// adds (TMUX_MCP_PASS_ENV=MCP29_PASSED) are there; another variable is not.
func TestServerInheritsNoSecrets(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t) // no server yet: the binary starts it
	secrets := map[string]string{
		"ANTHROPIC_API_KEY":           "canary-29-api-key",
		"TMUX_MCP_HTTP_TOKEN":         "canary-29-http-token",
		"OTEL_EXPORTER_OTLP_HEADERS":  "authorization=canary-29-otlp",
		"MCP29_NOT_PASSED":            "canary-29-other",
		"AWS_SECRET_ACCESS_KEY":       "canary-29-aws",
		"TMUX_MCP_TEST_SECRET_SUFFIX": "canary-29-own-setting",
	}
	extra := []string{"TMUX_MCP_PASS_ENV=MCP29_PASSED", "MCP29_PASSED=passed-on"}
	for k, v := range secrets {
		extra = append(extra, k+"="+v)
	}
	c, _, stderr := startStdio(t, bin, binaryEnv(tm.Socket, extra...))
	t.Cleanup(func() { c.Close() })
	callTool(t, c, "create_session", map[string]any{"session_name": "env"})
	tm.PID() // the server is the test's to kill on cleanup

	leaks := func(where, env string) {
		t.Helper()
		for k, v := range secrets {
			if strings.Contains(env, v) {
				t.Errorf("%s holds %s", where, k)
			}
		}
		for _, want := range []string{"HOME=", "PATH=", "MCP29_PASSED=passed-on"} {
			if !strings.Contains(env, want) {
				t.Errorf("%s lacks %s", where, want)
			}
		}
	}
	leaks("the server's global environment", tm.MustTmux("show-environment", "-g"))
	if runtime.GOOS == "linux" {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(tm.PID()) + "/environ")
		if err != nil {
			t.Fatal(err)
		}
		leaks("the server process's environment", strings.ReplaceAll(string(b), "\x00", "\n"))
	}

	pane := tm.MustTmux("display-message", "-p", "-t", "=env:", "#{pane_id}")
	var ran struct {
		Output []string `json:"output"`
	}
	res := callTool(t, c, "run_command", map[string]any{"pane_id": pane, "command": "env", "max_lines": 1000})
	if err := json.Unmarshal(structured(t, res), &ran); err != nil {
		t.Fatal(err)
	}
	leaks("a new pane's environment", strings.Join(ran.Output, "\n"))

	var shown struct {
		Variables map[string]any `json:"variables"`
	}
	res = callTool(t, c, "show_environment", map[string]any{"limit": 1000})
	if err := json.Unmarshal(structured(t, res), &shown); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for k, v := range shown.Variables {
		lines = append(lines, k+"="+strings.TrimSpace(toString(v)))
	}
	leaks("show_environment", strings.Join(lines, "\n"))
	if t.Failed() {
		t.Logf("tmux-mcp stderr:\n%s", stderr)
	}
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
