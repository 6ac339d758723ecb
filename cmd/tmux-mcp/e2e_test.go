package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// built is the binary the tests of one run share: linking it (gRPC and
// protobuf included) costs seconds.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	if socket := os.Getenv(fakeServerEnv); socket != "" {
		// This process is a hostile tmux server (fakeserver_test.go).
		os.Exit(runFakeServer(socket))
	}
	if view := os.Getenv(otherWebEnv); view != "" {
		// This process is another user's web server (view_attack_test.go).
		os.Exit(runOtherWeb(view))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildBinary builds tmux-mcp once per test run, into a temporary
// directory removed when the run ends.
func buildBinary(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds the binary")
	}
	built.once.Do(func() {
		// A test runner that built the binary already (scripts/citest,
		// which runs this package in many processes) names it.
		if bin := os.Getenv("TMUX_MCP_TEST_BIN"); bin != "" {
			built.bin = bin
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "tmux-mcp-test"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "tmux-mcp")
		if out, err := exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.bin
}

// binaryEnv is the environment for the binary: the test's isolated server,
// a journal beside its socket (never the user's), nothing from the
// caller's tmux, and no OpenTelemetry settings but those in extra.
func binaryEnv(socket string, extra ...string) []string {
	env := slices.DeleteFunc(tmuxtest.Env(), func(kv string) bool { return strings.HasPrefix(kv, "OTEL_") })
	return append(env, append([]string{
		"TMUX_MCP_SOCKET_PATH=" + socket,
		"TMUX_MCP_TMUX_CONFIG=/dev/null",
		"TMUX_MCP_JOURNAL=" + filepath.Join(filepath.Dir(socket), "journal.db"),
	}, extra...)...)
}

// syncBuffer is a goroutine-safe bytes.Buffer for a child's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startStdio starts the binary as an MCP stdio server and initializes a
// client. The returned cmd is the child process.
func startStdio(tb testing.TB, bin string, env []string) (*client.Client, *exec.Cmd, *syncBuffer) {
	tb.Helper()
	var cmd *exec.Cmd
	stderr := &syncBuffer{}
	c, err := client.NewStdioMCPClientWithOptions(bin, env, []string{"serve"},
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = env
			return cmd, nil
		}),
		transport.WithCommandStderrWriter(stderr))
	if err != nil {
		tb.Fatalf("start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		tb.Fatalf("initialize: %v\nstderr:\n%s", err, stderr)
	}
	return c, cmd, stderr
}

func callTool(tb testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		tb.Fatalf("%s: error result %v", name, res.Content)
	}
	return res
}

// sessionNames returns the session names in a list_sessions result.
func sessionNames(tb testing.TB, res *mcp.CallToolResult) []string {
	tb.Helper()
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		raw, _ = json.Marshal(res.StructuredContent)
	}
	var out struct {
		Result []struct {
			Name string `json:"session_name"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		tb.Fatalf("decode list_sessions: %v", err)
	}
	var names []string
	for _, s := range out.Result {
		names = append(names, s.Name)
	}
	return names
}

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
	c := p.client(t, nil)
	exercise(t, c)
	c.Close()
	if err := p.stop(t); err != nil {
		t.Errorf("exit after SIGTERM: %v, want 0\nstderr:\n%s", err, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "tmux-mcp stopped") {
		t.Errorf("stderr has no clean-shutdown line:\n%s", p.stderr)
	}
}
