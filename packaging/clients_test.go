package packaging

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// clientsEnv names the directory holding the claude, gemini, codex and
// mcp-inspector commands of the clients' npm packages (make clients
// installs them).
const clientsEnv = "TMUX_MCP_CLIENTS"

// clientsDir returns the clients' directory, or skips.
func clientsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(clientsEnv)
	if dir == "" {
		t.Skipf("%s not set: run make clients", clientsEnv)
	}
	return dir
}

// clientEnv is the environment of a client in a HOME of the test's own:
// npm offline, no update checks, no caller's tmux, and the folder dir
// trusted by Gemini CLI (which starts no MCP server in a folder not
// trusted).
func clientEnv(t *testing.T, dir string) []string {
	t.Helper()
	home := t.TempDir()
	for _, d := range []string{".gemini", ".codex"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(`{"`+dir+`": "TRUST_FOLDER"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := slices.DeleteFunc(npmEnv(t), func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "TMUX=") || strings.HasPrefix(kv, "TMUX_PANE=")
	})
	return append(env, "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"),
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "GEMINI_CLI_NO_RELAUNCH=true")
}

// runClient runs a client's command in dir and returns its output; a
// failure fails the test unless mayFail.
func runClient(t *testing.T, bin, dir string, env, args []string, mayFail bool) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("%s %s (%.1fs):\n%s", filepath.Base(bin), strings.Join(args, " "), time.Since(start).Seconds(), out)
	if err != nil && !mayFail {
		t.Fatalf("%s %v: %v", filepath.Base(bin), args, err)
	}
	return string(out)
}

// TestClients adds tmux-mcp, run as the README says (`npx -y tmux-mcp`,
// here the launcher installed offline from dist/npm, and for Claude Code
// also the binary's absolute path, as the first steps before the first
// release give it), to Claude Code, Gemini CLI and Codex CLI with each
// client's own command, in a HOME of the test's own, and reads each
// client's own listing. Claude Code and
// Gemini CLI start the server to list it and must show it connected;
// Codex CLI's listing starts no server, so it must show it enabled with
// the command given, and Codex's app server (which needs no login to
// start a thread's MCP servers) must list tmux-mcp's tools and call
// list_sessions. (The lines that make every tool work headless, and the
// calls of run_command and send_keys, are cmd/tmux-mcp's
// TestReadmeClientsDriveTmux, with the local binary.)
func TestClients(t *testing.T) {
	dir := clientsDir(t)
	prefix, _ := installLauncher(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	serverVars := []string{
		"TMUX_MCP_SOCKET_PATH=" + tm.Socket,
		"TMUX_MCP_TMUX_CONFIG=/dev/null",
		"TMUX_MCP_JOURNAL=" + filepath.Join(filepath.Dir(tm.Socket), "journal.db"),
	}
	launch := []string{"npx", "-y", "tmux-mcp"}
	// The binary a clone builds (the README's first steps before the
	// first release): this platform's, as the launcher would run it.
	binary := filepath.Join(prefix, "node_modules", "tmux-mcp-"+runtime.GOOS+"-"+nodeCPU[runtime.GOARCH], "bin", "tmux-mcp")
	// addArgs is `mcp add`, pre, each server variable after flag, post
	// and the command: each client wants the server's name at its place.
	addArgs := func(pre []string, flag string, post []string, command ...string) []string {
		args := append([]string{"mcp", "add"}, pre...)
		for _, v := range serverVars {
			args = append(args, flag, v)
		}
		if command == nil {
			command = launch
		}
		return append(append(args, post...), command...)
	}

	tests := []struct {
		client string
		add    []string
		list   []string
		want   *regexp.Regexp
	}{
		{
			client: "claude",
			add:    addArgs([]string{"-s", "user", "tmux-mcp"}, "-e", []string{"--"}),
			list:   []string{"mcp", "list"},
			want:   regexp.MustCompile(`(?m)^tmux-mcp: npx -y tmux-mcp +- ✔ Connected$`),
		},
		{
			client: "claude",
			add:    addArgs([]string{"-s", "user", "tmux-mcp"}, "-e", []string{"--"}, binary),
			list:   []string{"mcp", "list"},
			want:   regexp.MustCompile(`(?m)^tmux-mcp: ` + regexp.QuoteMeta(binary) + ` +- ✔ Connected$`),
		},
		{
			client: "gemini",
			add:    addArgs([]string{"-s", "user", "--trust"}, "-e", []string{"tmux-mcp"}),
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
		name := tt.client
		if !slices.Contains(tt.add, "npx") {
			name += ", local binary"
		}
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(dir, tt.client)
			env := clientEnv(t, prefix)
			// prefix is the project: npx finds the installed launcher there.
			runClient(t, bin, prefix, env, tt.add, false)
			if out := runClient(t, bin, prefix, env, tt.list, false); !tt.want.MatchString(out) {
				t.Errorf("%s %s: no line matching %q", tt.client, strings.Join(tt.list, " "), tt.want)
			}
			if tt.client != "codex" {
				return
			}
			app := startCodexApp(t, bin, prefix, env)
			thread := app.thread(prefix)
			s := app.server(thread, "tmux-mcp")
			t.Logf("codex app-server: %s", s)
			if s.RuntimeStatus != "connected" || s.Tools["list_sessions"] == nil {
				t.Fatalf("codex app-server: %s; want tmux-mcp connected with list_sessions", s)
			}
			got, isError := app.callTool(thread, "tmux-mcp", "list_sessions", nil)
			sessions, _ := got["result"].([]any)
			if isError || len(sessions) != 1 || sessions[0].(map[string]any)["session_name"] != "main" {
				t.Errorf("codex app-server: list_sessions = %v (error %t), want the session main", got, isError)
			}
		})
	}
}

// oauthDance are what a client says when it takes a refusal for the
// start of OAuth, instead of what the server said.
var oauthDance = regexp.MustCompile(`(?i)mcp login|/mcp auth|not logged in|interactive oauth|dynamic client registration`)

// TestClientsRefusal starts `tmux-mcp --http` (the launcher installed
// from dist/npm, with a token it generates), adds it to each client the
// README names without the token, and reads what each one tells its user:
// it must say to send "Authorization: Bearer <token>" and where the token
// is, and must not send the user into an OAuth login. Claude Code shows
// it in `claude mcp get`, Codex CLI in the server's startup error (its app
// server, which its TUI shows), Gemini CLI in its debug output (`-p
// --debug`; its /mcp list says only "Disconnected"), the MCP Inspector in
// its error.
func TestClientsRefusal(t *testing.T) {
	dir := clientsDir(t)
	prefix, _ := installLauncher(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	url, tokenFile := startHTTPLauncher(t, prefix, tm)
	want := []string{`Send the header "Authorization: Bearer <token>"`, "The token is in " + tokenFile}
	check := func(t *testing.T, what, got string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s does not say %q:\n%s", what, w, got)
			}
		}
		if m := oauthDance.FindString(got); m != "" {
			t.Errorf("%s sends the user into OAuth (%q):\n%s", what, m, got)
		}
	}

	t.Run("claude", func(t *testing.T) {
		bin, env := filepath.Join(dir, "claude"), clientEnv(t, prefix)
		runClient(t, bin, prefix, env, []string{"mcp", "add", "--transport", "http", "tmux-mcp", url}, false)
		check(t, "claude mcp get", runClient(t, bin, prefix, env, []string{"mcp", "get", "tmux-mcp"}, true))
	})
	t.Run("codex", func(t *testing.T) {
		bin, env := filepath.Join(dir, "codex"), clientEnv(t, prefix)
		runClient(t, bin, prefix, env, []string{"mcp", "add", "tmux-mcp", "--url", url}, false)
		if out := runClient(t, bin, prefix, env, []string{"mcp", "list"}, false); !regexp.MustCompile(`(?m)^tmux-mcp .* Unsupported`).MatchString(out) {
			t.Errorf("codex mcp list: want tmux-mcp with auth Unsupported (no OAuth found)")
		}
		app := startCodexApp(t, bin, prefix, env)
		s := app.server(app.thread(prefix), "tmux-mcp")
		t.Logf("codex app-server: %s", s)
		check(t, "codex app-server's tmux-mcp error", s.ToolsError)
	})
	t.Run("gemini", func(t *testing.T) {
		bin, env := filepath.Join(dir, "gemini"), clientEnv(t, prefix)
		runClient(t, bin, prefix, env, []string{"mcp", "add", "-s", "user", "-t", "http", "tmux-mcp", url}, false)
		// A prompt with a key that no model accepts: Gemini CLI connects
		// its MCP servers first, and says why one failed in debug output.
		check(t, "gemini --debug", geminiMCPError(t, bin, prefix, append(env, "GEMINI_API_KEY=not-a-key")))
	})
	t.Run("inspector", func(t *testing.T) {
		bin := filepath.Join(dir, "mcp-inspector")
		out := runClient(t, bin, prefix, clientEnv(t, prefix), []string{"--cli", url, "--method", "tools/list"}, true)
		// It prints {"error":{"message":...}}.
		var res struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res); err != nil {
			t.Fatalf("mcp-inspector --cli: %v in %q", err, out)
		}
		check(t, "mcp-inspector --cli", res.Error.Message)
	})
}

// startHTTPLauncher serves tm's server over HTTP through the launcher
// installed in prefix, with a generated token, and returns the URL and
// the token's file; cleanup stops it with SIGTERM.
func startHTTPLauncher(t *testing.T, prefix string, tm *tmuxtest.Server) (url, tokenFile string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(prefix, "node_modules", ".bin", "tmux-mcp"), "--http", "127.0.0.1:0")
	cmd.Env = serverEnv(tm, "XDG_RUNTIME_DIR="+t.TempDir())
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }() //nolint:errcheck // its status is not the test's
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have exited
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill() //nolint:errcheck // stuck
			<-done
		}
	})
	listening := regexp.MustCompile(`msg=listening url=(\S+) auth=bearer token_file=(\S+)`)
	var m []string
	tmuxtest.WaitFor(t, 15*time.Second, "tmux-mcp --http listening", func() bool {
		m = listening.FindStringSubmatch(stderr.String())
		return m != nil
	})
	return m[1], m[2]
}

// geminiMCPError runs `gemini -p hi --debug` and returns its output up to
// the line that says why an MCP server failed to start; Gemini CLI, which
// then asks a model, is stopped there.
func geminiMCPError(t *testing.T, bin, dir string, env []string) string {
	t.Helper()
	cmd := exec.Command(bin, "-p", "hi", "--debug")
	cmd.Dir, cmd.Env = dir, env
	r, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); w.Close(); close(done) }() //nolint:errcheck // stopped below
	defer func() {
		cmd.Process.Kill() //nolint:errcheck // it may have exited
		<-done
	}()
	found := make(chan string, 1)
	out := &syncBuffer{}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			out.Write([]byte(sc.Text() + "\n")) //nolint:errcheck // a buffer
			if strings.Contains(sc.Text(), "[MCP error]") {
				found <- sc.Text()
				break
			}
		}
		io.Copy(io.Discard, r) //nolint:errcheck // drain until it is stopped
	}()
	select {
	case line := <-found:
		t.Logf("gemini -p hi --debug: %s", line)
		return line
	case <-done:
	case <-time.After(90 * time.Second):
	}
	t.Fatalf("gemini -p hi --debug said no [MCP error]:\n%s", out)
	return ""
}
