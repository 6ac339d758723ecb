package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// clientEnvironments are the environments MCP clients start servers with:
// the caller's whole environment, the official SDKs' default (HOME,
// LOGNAME, PATH, SHELL, TERM, USER: no locale), env -i with only PATH, the
// C locale and a locale that is not UTF-8.
func clientEnvironments() map[string][]string {
	keep := func(names ...string) []string {
		var env []string
		for _, n := range names {
			if v, ok := os.LookupEnv(n); ok {
				env = append(env, n+"="+v)
			}
		}
		return env
	}
	sdk := keep("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
	return map[string][]string{
		"full":        tmuxtest.Env(),
		"sdk-default": sdk,
		"path-only":   keep("PATH"),
		"lang-c":      append(append([]string{}, sdk...), "LANG=C", "LC_ALL=C"),
		"latin1":      append(append([]string{}, sdk...), "LANG=en_US.ISO-8859-1", "LC_ALL=en_US.ISO-8859-1"),
	}
}

// TestClientEnvironments runs the built binary over stdio in each client
// environment and checks that names, paths and pane text with non-ASCII
// and separator-like characters come back exactly. Before tmux-mcp ran
// tmux with -u and read records with #{q:}, the first call failed in every
// environment without a UTF-8 locale ("parse server info: 1 fields, want
// 4"), and on tmux 3.4 and 3.5a in every environment.
func TestClientEnvironments(t *testing.T) {
	bin := buildBinary(t)
	for name, base := range clientEnvironments() {
		t.Run(name, func(t *testing.T) {
			tm := tmuxtest.New(t)
			dir := filepath.Join(tm.Dir, "dïr|with>odd;chars")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			env := append(append([]string{}, base...),
				"TMUX_MCP_SOCKET_PATH="+tm.Socket,
				"TMUX_MCP_TMUX_CONFIG=/dev/null",
				"TMUX_MCP_JOURNAL="+filepath.Join(tm.Dir, "journal.db"),
				"SHELL="+tmuxtest.Shell)
			c, _, stderr := startStdio(t, bin, env)
			defer c.Close()
			session := "agent-✓é"
			callTool(t, c, "create_session", map[string]any{"session_name": session, "start_directory": dir})
			if got := sessionNames(t, callTool(t, c, "list_sessions", nil)); !contains(got, session) {
				t.Fatalf("list_sessions = %q, want %q among them\nstderr:\n%s", got, session, stderr)
			}
			var listed struct {
				Result []struct {
					ID   string `json:"pane_id"`
					Path string `json:"pane_current_path"`
				} `json:"result"`
			}
			// Until the pane's shell runs, tmux reads the path of its fork
			// ("" or the server's directory): wait for the shell's.
			tmuxtest.WaitFor(t, 10*time.Second, "the pane's directory", func() bool {
				panes := callTool(t, c, "list_panes", map[string]any{"session_name": session})
				if err := json.Unmarshal(structured(t, panes), &listed); err != nil {
					t.Fatal(err)
				}
				if len(listed.Result) != 1 {
					t.Fatalf("list_panes: %d panes, want 1", len(listed.Result))
				}
				return listed.Result[0].Path == dir
			})
			res := callTool(t, c, "run_command", map[string]any{"pane_id": listed.Result[0].ID,
				"command": `printf 'h\303\251llo \342\234\223 a|b>c\n'`})
			var ran struct {
				Output     []string `json:"output"`
				ExitStatus *int     `json:"exit_status"`
			}
			if err := json.Unmarshal(structured(t, res), &ran); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(ran.Output, "\n"), "héllo ✓ a|b>c") || ran.ExitStatus == nil || *ran.ExitStatus != 0 {
				t.Errorf("run_command = %+v, want héllo ✓ a|b>c and exit 0", ran)
			}
		})
	}
}
