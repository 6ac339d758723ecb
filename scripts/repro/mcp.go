package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// mcpProc is one tmux-mcp process driven over MCP stdio, as an agent
// drives it. It records the supervisor's log notifications (deaths,
// restarts, restores) with their arrival times.
type mcpProc struct {
	c      *client.Client
	cmd    *exec.Cmd
	stderr *loadtest.SyncBuffer
	tools  map[string]bool

	mu     sync.Mutex
	events []event
	signal chan struct{}
}

// event is one supervisor log notification.
type event struct {
	at     time.Time
	kind   string // server_died, restarting, restarted, restored, socket_recreated, ...
	socket string
	pid    int
	cause  string
	ok     bool // restored: whether the restore succeeded
}

// startMCP starts bin serve with env, initializes a client of the
// 2025-11-25 protocol (the one with logging/setLevel) and asks for log
// notifications at level info.
func startMCP(ctx context.Context, bin string, env []string) (*mcpProc, error) {
	m := &mcpProc{stderr: &loadtest.SyncBuffer{}, signal: make(chan struct{}, 1), tools: map[string]bool{}}
	tr := transport.NewStdioWithOptions(bin, env, []string{"serve"},
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
		return nil, fmt.Errorf("repro: start tmux-mcp: %w", err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "repro", Version: "0"}
	ictx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := m.c.Initialize(ictx, init); err != nil {
		m.close()
		return nil, fmt.Errorf("repro: initialize tmux-mcp: %w (stderr: %s)", err, m.stderr.Tail(500))
	}
	if err := m.rpc(ictx, "logging/setLevel", map[string]any{"level": "info"}); err != nil {
		m.close()
		return nil, fmt.Errorf("repro: logging/setLevel: %w", err)
	}
	list, err := m.c.ListTools(ictx, mcp.ListToolsRequest{})
	if err != nil {
		m.close()
		return nil, fmt.Errorf("repro: tools/list: %w", err)
	}
	for _, t := range list.Tools {
		m.tools[t.Name] = true
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
		ID: mcp.NewRequestId(fmt.Sprintf("repro-%d", rpcSeq.Add(1))), Method: method, Params: params})
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return fmt.Errorf("%d %s", resp.Error.Code, resp.Error.Message)
	}
	return nil
}

func (m *mcpProc) onNotification(n mcp.JSONRPCNotification) {
	if n.Method != string(mcp.MethodNotificationMessage) {
		return
	}
	raw, _ := json.Marshal(n)
	var msg struct {
		Params struct {
			Data struct {
				Event  string `json:"event"`
				Socket string `json:"socket"`
				PID    int    `json:"pid"`
				Cause  string `json:"cause"`
				OK     *bool  `json:"ok"`
			} `json:"data"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &msg) != nil || msg.Params.Data.Event == "" {
		return
	}
	d := msg.Params.Data
	e := event{at: time.Now(), kind: d.Event, socket: d.Socket, pid: d.PID, cause: d.Cause, ok: d.OK != nil && *d.OK}
	m.mu.Lock()
	m.events = append(m.events, e)
	m.mu.Unlock()
	select {
	case m.signal <- struct{}{}:
	default:
	}
}

// allEvents returns every event so far.
func (m *mcpProc) allEvents() []event {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]event(nil), m.events...)
}

// mark returns a position in the event log for waitEvent.
func (m *mcpProc) mark() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.events)
}

// waitEvent returns the first event from position i on that ok accepts,
// waiting until timeout.
func (m *mcpProc) waitEvent(ctx context.Context, i int, timeout time.Duration, ok func(event) bool) (event, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		m.mu.Lock()
		evs := m.events[min(i, len(m.events)):]
		for _, e := range evs {
			if ok(e) {
				m.mu.Unlock()
				return e, true
			}
		}
		m.mu.Unlock()
		select {
		case <-m.signal:
		case <-deadline.C:
			return event{}, false
		case <-ctx.Done():
			return event{}, false
		}
	}
}

// callGrace is how long a call may take beyond its own timeout argument
// (or, without one, at all) before the harness stops waiting: every
// tmux call of tmux-mcp has a deadline, so a call still unanswered then
// is a hang, and the run must fail on it rather than wait with it (the
// soak smoke once waited 41 min on a server_health).
const callGrace = time.Minute

// tool calls a tool. A tool error result comes back as a ToolResult
// with its class; a protocol or transport failure as an error, and so
// does a call unanswered past its timeout and callGrace.
func (m *mcpProc) tool(ctx context.Context, name string, args map[string]any) (loadtest.ToolResult, error) {
	limit := callGrace
	if secs, ok := args["timeout"].(float64); ok && secs > 0 {
		limit += time.Duration(secs * float64(time.Second))
	} else if secs, ok := args["timeout"].(int); ok && secs > 0 {
		limit += time.Duration(secs) * time.Second
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	r, err := loadtest.CallTool(cctx, m.c, name, args)
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("repro: %s did not answer within %s (a hang in tmux-mcp): %w", name, limit, err)
		}
		return loadtest.ToolResult{Class: errClass(err)}, err
	}
	return r, nil
}

// mustTool is tool for set-up steps: any failure is an error.
func (m *mcpProc) mustTool(ctx context.Context, name string, args map[string]any, into any) error {
	r, err := m.tool(ctx, name, args)
	if err != nil {
		return fmt.Errorf("repro: %s: %w", name, err)
	}
	if r.Class != "" {
		return fmt.Errorf("repro: %s: %s", name, loadtest.FirstLine(r.Text))
	}
	if into != nil {
		if err := json.Unmarshal(r.Raw, into); err != nil {
			return fmt.Errorf("repro: decode %s: %w", name, err)
		}
	}
	return nil
}

// capture reads a pane's text the way an agent polls: the capture_pane
// tool when the binary has it, else the pane content resource.
func (m *mcpProc) capture(ctx context.Context, pane string) (string, string) {
	if m.tools["capture_pane"] {
		r, err := m.tool(ctx, "capture_pane", map[string]any{"pane_id": pane})
		if err != nil || r.Class != "" {
			return "", r.Class
		}
		var out struct {
			Result string `json:"result"`
		}
		if json.Unmarshal(r.Raw, &out) == nil {
			return out.Result, ""
		}
		return r.Text, ""
	}
	var req mcp.ReadResourceRequest
	req.Params.URI = "tmux://panes/" + url.PathEscape(pane) + "/content"
	res, err := m.c.ReadResource(ctx, req)
	if err != nil {
		return "", errClass(err)
	}
	var b strings.Builder
	for _, c := range res.Contents {
		if t, ok := c.(mcp.TextResourceContents); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String(), ""
}

// health calls server_health (which makes no tmux call) for socketName,
// or the default server when it is "".
func (m *mcpProc) health(ctx context.Context, socketName string) (loadtest.Health, error) {
	var h loadtest.Health
	args := map[string]any{}
	if socketName != "" {
		args["socket_name"] = socketName
	}
	err := m.mustTool(ctx, "server_health", args, &h)
	return h, err
}

// close closes stdin (tmux-mcp drains and exits) and waits for the
// process, killing it if it has not exited after 10 s.
func (m *mcpProc) close() {
	done := make(chan struct{})
	go func() {
		m.c.Close() //nolint:errcheck // the process may be gone already
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		if p := m.pid(); p > 0 {
			m.cmd.Process.Kill() //nolint:errcheck // our own child, stuck
		}
		<-done
	}
}

// errClass names the class of a protocol or transport error.
func errClass(err error) string {
	return loadtest.ErrorClass(err, "", []string{"restarting", "rate limited", "server down", "not found", "timed out", "unreachable"})
}
