package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestMain(m *testing.M) {
	if socket := os.Getenv(fakeServerEnv); socket != "" {
		// This process is a hostile tmux server (fakeserver_test.go).
		os.Exit(runFakeServer(socket))
	}
	e2etest.Main(m)
}

// The names the tests of this package call the end-to-end helpers by;
// the helpers live in internal/e2etest, which hosts and view share.
type (
	syncBuffer = e2etest.Buffer
	httpProc   = e2etest.HTTP
	pushed     = e2etest.Notifications
	received   = e2etest.Received
)

func buildBinary(tb testing.TB) string { tb.Helper(); return e2etest.Binary(tb) }

func binaryEnv(socket string, extra ...string) []string { return e2etest.Env(socket, extra...) }

func startStdio(tb testing.TB, bin string, env []string) (*client.Client, *exec.Cmd, *syncBuffer) {
	tb.Helper()
	return e2etest.StartStdio(tb, bin, env)
}

func startLegacyStdio(tb testing.TB, bin string, env []string) (*client.Client, *pushed, *syncBuffer) {
	tb.Helper()
	return e2etest.StartLegacyStdio(tb, bin, env)
}

func startHTTP(t *testing.T, tm *tmuxtest.Server, args ...string) *httpProc {
	t.Helper()
	return e2etest.StartHTTP(t, tm, args...)
}

func callTool(tb testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	tb.Helper()
	return e2etest.CallTool(tb, c, name, args)
}

func callToolErr(c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	return e2etest.CallToolErr(c, name, args)
}

func toolFails(t *testing.T, c *client.Client, name string, args map[string]any, fragments ...string) {
	t.Helper()
	e2etest.ToolFails(t, c, name, args, fragments...)
}

func decode(tb testing.TB, res *mcp.CallToolResult, out any) {
	tb.Helper()
	e2etest.Decode(tb, res, out)
}

func structured(tb testing.TB, res *mcp.CallToolResult) []byte {
	tb.Helper()
	return e2etest.Structured(tb, res)
}

func text(res *mcp.CallToolResult) string { return e2etest.Text(res) }

func sessionNames(tb testing.TB, res *mcp.CallToolResult) []string {
	tb.Helper()
	return e2etest.SessionNames(tb, res)
}

func rpc(c *client.Client, method string, params any) error { return e2etest.RPC(c, method, params) }

func contentURI(pane string) string { return e2etest.ContentURI(pane) }

func isUpdate(uri string) func(received) bool { return e2etest.IsUpdate(uri) }

func isLogOf(event string) func(received) bool { return e2etest.IsLogOf(event) }

// serverCaps returns the capabilities of ts's server.
func serverCaps(tb testing.TB, ts *tmuxtest.Server) tmux.Capabilities {
	tb.Helper()
	v, err := tmux.ParseVersion(ts.MustTmux("display-message", "-p", "#{version}"))
	if err != nil {
		tb.Fatal(err)
	}
	return v.Capabilities()
}

// exercise creates a session, lists it, and kills it.
func exercise(t *testing.T, c *client.Client) {
	t.Helper()
	callTool(t, c, "create_session", map[string]any{"session_name": "e2e"})
	if got := sessionNames(t, callTool(t, c, "list_sessions", nil)); !contains(got, "e2e") {
		t.Errorf("list_sessions = %v, want e2e among them", got)
	}
	res := callTool(t, c, "kill_session", map[string]any{"session_name": "e2e"})
	if got := res.Content[0].(mcp.TextContent).Text; got != "Session killed: e2e" {
		t.Errorf("kill_session = %q, want Session killed: e2e", got)
	}
	if got := sessionNames(t, callTool(t, c, "list_sessions", nil)); contains(got, "e2e") {
		t.Errorf("list_sessions after kill = %v, want no e2e", got)
	}
}

func TestStdioEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	c, cmd, stderr := startStdio(t, bin, binaryEnv(tm.Socket, "TMUX_MCP_SAFETY=destructive"))
	exercise(t, c)
	if err := c.Close(); err != nil {
		t.Errorf("close (stdin EOF): %v\nstderr:\n%s", err, stderr)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("exit: %v, want 0\nstderr:\n%s", cmd.ProcessState, stderr)
	}
	if tm.PID() == 0 {
		t.Errorf("tmux server gone after tmux-mcp exited, want it left running")
	}
}

// TestStdioLegacyHandshake speaks the initialize handshake the way MCP
// clients of the 2025 protocol do, byte for byte, and checks that stdout
// carries nothing but JSON-RPC frames. SIGTERM ends the server cleanly.
func TestStdioLegacyHandshake(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	cmd := exec.Command(bin)
	cmd.Env = binaryEnv(tm.Socket)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv := func(id int) map[string]any {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stdout closed; stderr:\n%s", stderr)
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil || m["jsonrpc"] != "2.0" {
					t.Fatalf("stdout line is not a JSON-RPC frame: %q", l)
				}
				if m["id"] == float64(id) {
					return m
				}
			case <-timeout:
				t.Fatalf("no response %d; stderr:\n%s", id, stderr)
			}
		}
	}
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, v))
		init := recv(1)
		res, _ := init["result"].(map[string]any)
		if res == nil || res["protocolVersion"] == nil || !strings.Contains(fmt.Sprint(res["instructions"]), "Safety level: mutating") {
			t.Fatalf("initialize %s = %v, want a result with instructions", v, init)
		}
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}`)
	if r := recv(2); !strings.Contains(fmt.Sprint(r["result"]), "session_name:main") {
		t.Errorf("list_sessions = %v, want session main", r)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v, want 0\nstderr:\n%s", err, stderr)
	}
}

func TestHTTPEndToEnd(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := startHTTP(t, tm, "--safety", "destructive")
	c := p.Client(t, nil)
	exercise(t, c)
	c.Close()
	if err := p.Stop(t); err != nil {
		t.Errorf("exit after SIGTERM: %v, want 0\nstderr:\n%s", err, p.Stderr)
	}
	if !strings.Contains(p.Stderr.String(), "tmux-mcp stopped") {
		t.Errorf("stderr has no clean-shutdown line:\n%s", p.Stderr)
	}
}
