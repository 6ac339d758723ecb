package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// mcpProc is one tmux-mcp process driven over MCP stdio, as an agent's
// MCP client drives it. It keeps the supervisor's log notifications
// about the server's life (died, restarting, restarted, restored).
type mcpProc struct {
	c      *client.Client
	cmd    *exec.Cmd
	stderr *loadtest.SyncBuffer
	t0     time.Time

	mu     sync.Mutex
	events []string // "12.3s server_died pid 123 cause crashed"
}

// startMCP starts bin with args and env, initializes a client of the
// 2025-11-25 protocol (the one with logging/setLevel) and asks for log
// notifications at level info.
func startMCP(ctx context.Context, bin string, args, env []string, t0 time.Time) (*mcpProc, error) {
	m := &mcpProc{stderr: &loadtest.SyncBuffer{}, t0: t0}
	tr := transport.NewStdioWithOptions(bin, env, args,
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			// Not CommandContext: the process ends when its stdin closes
			// (close), so that it drains and exits as in the field.
			m.cmd = exec.Command(command, args...)
			m.cmd.Env = env
			return m.cmd, nil
		}),
		transport.WithCommandStderrWriter(m.stderr))
	m.c = client.NewClient(tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	m.c.OnNotification(m.onNotification)
	if err := m.c.Start(ctx); err != nil {
		return nil, fmt.Errorf("churn: start tmux-mcp: %w", err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "churn", Version: "0"}
	ictx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := m.c.Initialize(ictx, init); err != nil {
		m.close()
		return nil, fmt.Errorf("churn: initialize tmux-mcp: %w (stderr: %s)", err, m.stderr.Tail(500))
	}
	if err := m.rpc(ictx, "logging/setLevel", map[string]any{"level": "info"}); err != nil {
		m.close()
		return nil, fmt.Errorf("churn: logging/setLevel: %w", err)
	}
	return m, nil
}

// pid returns the tmux-mcp process's PID.
func (m *mcpProc) pid() int {
	if m.cmd == nil || m.cmd.Process == nil {
		return 0
	}
	return m.cmd.Process.Pid
}

var rpcSeq atomic.Int64

// rpc sends a request mcp-go offers only as a deprecated call.
func (m *mcpProc) rpc(ctx context.Context, method string, params any) error {
	resp, err := m.c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
		ID: mcp.NewRequestId(fmt.Sprintf("churn-%d", rpcSeq.Add(1))), Method: method, Params: params})
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return fmt.Errorf("%d %s", resp.Error.Code, resp.Error.Message)
	}
	return nil
}

// lifeEvents are the supervisor events about a server's life that the
// report lists.
var lifeEvents = map[string]bool{"server_died": true, "restarting": true, "restarted": true, "restored": true,
	"socket_recreated": true, "server_adopted": true, "server_started": true}

func (m *mcpProc) onNotification(n mcp.JSONRPCNotification) {
	if n.Method != string(mcp.MethodNotificationMessage) {
		return
	}
	raw, _ := json.Marshal(n)
	var msg struct {
		Params struct {
			Data struct {
				Event  string `json:"event"`
				PID    int    `json:"pid"`
				Cause  string `json:"cause"`
				Detail string `json:"detail"`
			} `json:"data"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &msg) != nil || !lifeEvents[msg.Params.Data.Event] {
		return
	}
	d := msg.Params.Data
	s := fmt.Sprintf("%.1fs %s", time.Since(m.t0).Seconds(), d.Event)
	if d.PID > 0 {
		s += fmt.Sprintf(" pid %d", d.PID)
	}
	if d.Cause != "" {
		s += " cause " + d.Cause
	}
	if d.Detail != "" {
		s += " (" + d.Detail + ")"
	}
	m.mu.Lock()
	if len(m.events) < 100 {
		m.events = append(m.events, s)
	}
	m.mu.Unlock()
}

// lifeLog returns the server life events seen so far.
func (m *mcpProc) lifeLog() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.events...)
}

// tool calls a tool. A tool error result comes back as a ToolResult
// with its class; a protocol or transport failure as an error.
func (m *mcpProc) tool(ctx context.Context, name string, args map[string]any) (loadtest.ToolResult, error) {
	r, err := loadtest.CallTool(ctx, m.c, name, args)
	if err != nil {
		return loadtest.ToolResult{Class: errClass(err)}, err
	}
	return r, nil
}

// health calls server_health (which makes no tmux call).
func (m *mcpProc) health(ctx context.Context) (loadtest.Health, error) {
	var h loadtest.Health
	r, err := m.tool(ctx, "server_health", map[string]any{})
	if err != nil {
		return h, err
	}
	if r.Class != "" {
		return h, fmt.Errorf("server_health: %s", loadtest.FirstLine(r.Text))
	}
	if err := json.Unmarshal(r.Raw, &h); err != nil {
		return h, fmt.Errorf("server_health: %w", err)
	}
	return h, nil
}

// close closes stdin (tmux-mcp drains and exits) and waits for the
// process, killing it (by PID: our own child) if it has not exited after
// 10 s. It reports whether it had to.
func (m *mcpProc) close() bool {
	done := make(chan struct{})
	go func() {
		m.c.Close() //nolint:errcheck // the process may be gone already
		close(done)
	}()
	select {
	case <-done:
		return false
	case <-time.After(10 * time.Second):
		if p := m.pid(); p > 0 {
			m.cmd.Process.Kill() //nolint:errcheck // our own child, stuck
		}
		<-done
		return true
	}
}

// errClass names the class of a protocol or transport error.
func errClass(err error) string {
	return loadtest.ErrorClass(err, "", []string{"restarting", "rate limited", "server down", "not found", "timed out",
		"unreachable", "file already closed", "broken pipe", "eof"})
}
