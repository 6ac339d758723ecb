package packaging

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// serverEnv is the environment for a packaged tmux-mcp: the test's
// isolated tmux server, a journal beside its socket, nothing from the
// caller's tmux, no OpenTelemetry settings.
func serverEnv(tm *tmuxtest.Server, extra ...string) []string {
	env := slices.DeleteFunc(tmuxtest.Env(), func(kv string) bool { return strings.HasPrefix(kv, "OTEL_") })
	return append(env, append([]string{
		"TMUX_MCP_SOCKET_PATH=" + tm.Socket,
		"TMUX_MCP_TMUX_CONFIG=/dev/null",
		"TMUX_MCP_JOURNAL=" + filepath.Join(filepath.Dir(tm.Socket), "journal.db"),
	}, extra...)...)
}

// syncBuffer is a goroutine-safe buffer for a child's stderr.
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

// serveSession runs an MCP session with the server that command starts
// (in dir): initialize, tools/list, create_session and list_sessions on
// the test's tmux server, then stdin's end, after which the command must
// exit 0. It returns the serverInfo version.
func serveSession(t *testing.T, dir, command string, args, env []string) string {
	t.Helper()
	var cmd *exec.Cmd
	stderr := &syncBuffer{}
	c, err := client.NewStdioMCPClientWithOptions(command, env, args,
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = env
			cmd.Dir = dir
			return cmd, nil
		}),
		transport.WithCommandStderrWriter(stderr))
	if err != nil {
		t.Fatalf("start %s: %v", command, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "packaging-test", Version: "0"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		c.Close()
		t.Fatalf("initialize: %v\nstderr:\n%s", err, stderr)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v\nstderr:\n%s", err, stderr)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"create_session", "list_sessions", "send_keys", "capture_pane"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list = %v, want %s among them", names, want)
		}
	}
	call(ctx, t, c, "create_session", map[string]any{"session_name": "packaged"})
	res2 := call(ctx, t, c, "list_sessions", nil)
	var out struct {
		Result []struct {
			Name string `json:"session_name"`
		} `json:"result"`
	}
	raw, _ := json.Marshal(res2.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("list_sessions: %v", err)
	}
	var sessions []string
	for _, s := range out.Result {
		sessions = append(sessions, s.Name)
	}
	if !slices.Contains(sessions, "packaged") {
		t.Errorf("list_sessions = %v, want packaged among them", sessions)
	}
	if err := c.Close(); err != nil {
		t.Errorf("close (stdin EOF): %v\nstderr:\n%s", err, stderr)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("exit after stdin EOF: %v, want 0\nstderr:\n%s", cmd.ProcessState, stderr)
	}
	return res.ServerInfo.Version
}

func call(ctx context.Context, t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: error result %v", name, res.Content)
	}
	return res
}
