package tools

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// env is one test's isolated tmux server, supervisor and MCP client.
type env struct {
	t   *testing.T
	tm  *tmuxtest.Server
	sup *supervisor.Supervisor
	srv *Server
	c   *client.Client
	d   Deps
}

// testConfig is the supervisor configuration for tests: the isolated
// socket, no config file. TMUX_MCP_TEST_EXEC_ONLY=1 turns control mode
// off.
func testConfig(tm *tmuxtest.Server) supervisor.Config {
	return supervisor.Config{
		DefaultSocket: tmux.Socket{Path: tm.Socket},
		TmuxConfig:    "/dev/null",
		ExecOnly:      os.Getenv("TMUX_MCP_TEST_EXEC_ONLY") == "1",
	}
}

// newEnv starts an isolated server with one session "main" and an MCP
// server at tier with all toolsets. mod may adjust the Deps.
func newEnv(t *testing.T, tier Tier, mod ...func(*Deps)) *env {
	t.Helper()
	tm := tmuxtest.New(t)
	tm.Start("main")
	return newEnvOver(t, tm, testConfig(tm), tier, mod...)
}

// newEnvOver is newEnv over tm, which may have no server running yet, with
// the supervisor configured by cfg.
func newEnvOver(t *testing.T, tm *tmuxtest.Server, cfg supervisor.Config, tier Tier, mod ...func(*Deps)) *env {
	t.Helper()
	sup := supervisor.New(cfg)
	t.Cleanup(func() { sup.Close() })
	d := Deps{Sup: sup, Tier: tier, SocketDir: t.TempDir()}
	for _, m := range mod {
		m(&d)
	}
	srv, err := New(d, Options{Settings: mcpserver.Settings{Version: "test", ValidateOutput: true}})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	c := startClient(t, srv)
	return &env{t: t, tm: tm, sup: sup, srv: srv, c: c, d: d}
}

func startClient(t *testing.T, srv *Server) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(srv.MCP)
	if err != nil {
		t.Fatalf("NewInProcessClient: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return c
}

// call calls a tool and fails the test on a protocol error.
func (e *env) call(name string, args map[string]any) *mcp.CallToolResult {
	e.t.Helper()
	res, err := e.callErr(name, args)
	if err != nil {
		e.t.Fatalf("%s(%v): protocol error: %v", name, args, err)
	}
	return res
}

func (e *env) callErr(name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	return e.c.CallTool(ctx, req)
}

// ok calls a tool, requires success, and decodes the structured content
// into out (if not nil).
func (e *env) ok(name string, args map[string]any, out any) *mcp.CallToolResult {
	e.t.Helper()
	res := e.call(name, args)
	if res.IsError {
		e.t.Fatalf("%s(%v): got error result %q, want success", name, args, text(res))
	}
	if out != nil {
		if err := json.Unmarshal(structuredJSON(e.t, res), out); err != nil {
			e.t.Fatalf("%s: decode structured content: %v", name, err)
		}
	}
	return res
}

// fails calls a tool, requires an error result, and checks that its text
// contains every fragment.
func (e *env) fails(name string, args map[string]any, fragments ...string) string {
	e.t.Helper()
	res := e.call(name, args)
	if !res.IsError {
		e.t.Fatalf("%s(%v): got success %q, want an error result", name, args, text(res))
	}
	got := text(res)
	for _, f := range fragments {
		if !strings.Contains(got, f) {
			e.t.Errorf("%s(%v): got error %q, want it to contain %q", name, args, got, f)
		}
	}
	return got
}

func structuredJSON(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	if len(res.RawStructuredContent) > 0 {
		return res.RawStructuredContent
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("marshal structured content: %v", err)
	}
	return b
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

type sessionsResult struct {
	Result []SessionInfo `json:"result"`
}

type windowsResult struct {
	Result []WindowInfo `json:"result"`
}

type panesResult struct {
	Result []PaneInfo `json:"result"`
}

type serversResult struct {
	Result []ServerInfo `json:"result"`
}

type messageResult struct {
	Result string `json:"result"`
}

// tmux runs a tmux command on the test's server (outside the supervisor),
// for setting up and checking state.
func (e *env) tmux(args ...string) string {
	e.t.Helper()
	return e.tm.MustTmux(args...)
}

func paneID(s string) tmux.PaneID { return tmux.PaneID(s) }

// firstPane is the pane of the test's session "main".
func (e *env) firstPane() string {
	e.t.Helper()
	return e.tmux("display-message", "-p", "-t", "main", "#{pane_id}")
}

// split splits target and returns the new pane (not selected).
func (e *env) split(target string, args ...string) string {
	e.t.Helper()
	return e.tmux(append([]string{"split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target}, args...)...)
}

// caps returns the capabilities of the tmux server under test.
func (e *env) caps() tmux.Capabilities {
	e.t.Helper()
	v, err := tmux.ParseVersion(e.tmux("display-message", "-p", "#{version}"))
	if err != nil {
		e.t.Fatal(err)
	}
	return v.Capabilities()
}

// newEnvOn is another MCP server (at tier, as caller) over e's supervisor.
func newEnvOn(t *testing.T, e *env, tier Tier, caller Caller) *env {
	t.Helper()
	srv, err := New(Deps{Sup: e.sup, Tier: tier, Caller: caller}, Options{Settings: mcpserver.Settings{ValidateOutput: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &env{t: t, tm: e.tm, sup: e.sup, srv: srv, c: startClient(t, srv), d: Deps{Sup: e.sup, Tier: tier, Caller: caller}}
}
