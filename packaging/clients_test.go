package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
)

// clientsEnv names the directory holding the claude, gemini and codex
// commands of the clients' npm packages (make clients installs them).
const clientsEnv = "TMUX_MCP_CLIENTS"

// TestClients adds tmux-mcp, run as the README says (`npx -y tmux-mcp`,
// here the launcher installed offline from dist/npm), to Claude Code,
// Gemini CLI and Codex CLI with each client's own command, in a HOME of
// the test's own, and reads each client's own listing. Claude Code and
// Gemini CLI start the server to list it and must show it connected;
// Codex CLI's listing starts no server (nothing does without a login),
// so it must show it enabled with the command given.
func TestClients(t *testing.T) {
	dir := os.Getenv(clientsEnv)
	if dir == "" {
		t.Skipf("%s not set: run make clients", clientsEnv)
	}
	prefix, _ := installLauncher(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	serverVars := []string{
		"TMUX_MCP_SOCKET_PATH=" + tm.Socket,
		"TMUX_MCP_TMUX_CONFIG=/dev/null",
		"TMUX_MCP_JOURNAL=" + filepath.Join(filepath.Dir(tm.Socket), "journal.db"),
	}
	launch := []string{"npx", "-y", "tmux-mcp"}
	// addArgs is `mcp add`, pre, each server variable after flag, post
	// and the command: each client wants the server's name at its place.
	addArgs := func(pre []string, flag string, post []string) []string {
		args := append([]string{"mcp", "add"}, pre...)
		for _, v := range serverVars {
			args = append(args, flag, v)
		}
		return append(append(args, post...), launch...)
	}

	tests := []struct {
		client string
		add    []string
		list   []string
		want   *regexp.Regexp
	}{
		{
			client: "claude",
			add:    addArgs([]string{"-s", "local", "tmux-mcp"}, "-e", []string{"--"}),
			list:   []string{"mcp", "list"},
			want:   regexp.MustCompile(`(?m)^tmux-mcp: npx -y tmux-mcp +- ✔ Connected$`),
		},
		{
			client: "gemini",
			add:    addArgs([]string{"-s", "user"}, "-e", []string{"tmux-mcp"}),
			list:   []string{"mcp", "list"},
			want:   regexp.MustCompile(`(?m)^✓ tmux-mcp: npx -y tmux-mcp \(stdio\) - Connected$`),
		},
		{
			client: "codex",
			add:    addArgs(nil, "--env", []string{"tmux-mcp", "--"}),
			list:   []string{"mcp", "list"},
			want:   regexp.MustCompile(`(?m)^tmux-mcp +npx +-y tmux-mcp .* enabled `),
		},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			bin := filepath.Join(dir, tt.client)
			home := t.TempDir()
			// Gemini CLI starts no MCP server in a folder not trusted.
			if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(`{"`+prefix+`": "TRUST_FOLDER"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			env := slices.DeleteFunc(npmEnv(t), func(kv string) bool {
				return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "TMUX=") || strings.HasPrefix(kv, "TMUX_PANE=")
			})
			env = append(env, "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"),
				"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "GEMINI_CLI_NO_RELAUNCH=true")
			if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
				t.Fatal(err)
			}
			run := func(args []string) string {
				t.Helper()
				cmd := exec.Command(bin, args...)
				cmd.Dir = prefix // the project: npx finds the installed launcher here
				cmd.Env = env
				start := time.Now()
				out, err := cmd.CombinedOutput()
				t.Logf("%s %s (%.1fs):\n%s", tt.client, strings.Join(args, " "), time.Since(start).Seconds(), out)
				if err != nil {
					t.Fatalf("%s %v: %v", tt.client, args, err)
				}
				return string(out)
			}
			run(tt.add)
			if out := run(tt.list); !tt.want.MatchString(out) {
				t.Errorf("%s %s: no line matching %q", tt.client, strings.Join(tt.list, " "), tt.want)
			}
		})
	}
}
