package e2etest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// StartStdio starts the binary as an MCP stdio server and initializes a
// client. The returned cmd is the child process.
func StartStdio(tb testing.TB, bin string, env []string) (*client.Client, *exec.Cmd, *Buffer) {
	tb.Helper()
	var cmd *exec.Cmd
	stderr := &Buffer{}
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

// StartLegacyStdio starts the binary and connects a client of the
// 2025-11-25 protocol (initialize handshake, resources/subscribe,
// logging/setLevel), as MCP clients in the field speak it, which keeps
// the notifications it hears. The client is closed when the test ends.
func StartLegacyStdio(tb testing.TB, bin string, env []string) (*client.Client, *Notifications, *Buffer) {
	tb.Helper()
	stderr := &Buffer{}
	tr := transport.NewStdioWithOptions(bin, env, []string{"serve"},
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env = env
			return cmd, nil
		}),
		transport.WithCommandStderrWriter(stderr))
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	p := &Notifications{signal: make(chan struct{}, 1)}
	c.OnNotification(p.add)
	// Start (not the transport's) also routes notifications to p.
	if err := c.Start(context.Background()); err != nil {
		tb.Fatalf("start: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e-legacy", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		tb.Fatalf("initialize: %v\nstderr:\n%s", err, stderr)
	}
	return c, p, stderr
}

// Notifications records the notifications a client received, in order.
type Notifications struct {
	mu     sync.Mutex
	all    []Received
	signal chan struct{}
}

// Received is one notification.
type Received struct {
	At     time.Time
	Method string
	Params map[string]any
	Raw    string // as JSON
}

// Str is the string parameter key ("" when it is not a string).
func (r Received) Str(key string) string { s, _ := r.Params[key].(string); return s }

// Data is the field key of the data parameter (of a log message).
func (r Received) Data(key string) any {
	d, _ := r.Params["data"].(map[string]any)
	return d[key]
}

func (p *Notifications) add(n mcp.JSONRPCNotification) {
	raw, _ := json.Marshal(n)
	var m struct {
		Params map[string]any `json:"params"`
	}
	_ = json.Unmarshal(raw, &m)
	p.mu.Lock()
	p.all = append(p.all, Received{At: time.Now(), Method: n.Method, Params: m.Params, Raw: string(raw)})
	p.mu.Unlock()
	select {
	case p.signal <- struct{}{}:
	default:
	}
}

// Since returns the notifications from the i-th on.
func (p *Notifications) Since(i int) []Received {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Received(nil), p.all[min(i, len(p.all)):]...)
}

// Len is how many notifications came so far.
func (p *Notifications) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.all)
}

// Arrived is sent on when notifications arrive (one send for any number).
func (p *Notifications) Arrived() <-chan struct{} { return p.signal }

// Wait returns the first notification from the i-th on that ok accepts,
// waiting for it up to timeout; the test fails with what came instead.
func (p *Notifications) Wait(tb testing.TB, i int, timeout time.Duration, what string, ok func(Received) bool) Received {
	tb.Helper()
	deadline := time.After(timeout)
	for {
		for _, r := range p.Since(i) {
			if ok(r) {
				return r
			}
		}
		select {
		case <-p.signal:
		case <-deadline:
			var b strings.Builder
			for _, r := range p.Since(i) {
				b.WriteString("\n  " + r.Raw)
			}
			tb.Fatalf("no %s within %v; got:%s", what, timeout, b.String())
		}
	}
}

// IsUpdate accepts a resources/updated of uri.
func IsUpdate(uri string) func(Received) bool {
	return func(r Received) bool {
		return r.Method == string(mcp.MethodNotificationResourceUpdated) && r.Str("uri") == uri
	}
}

// IsLogOf accepts a log message of event.
func IsLogOf(event string) func(Received) bool {
	return func(r Received) bool {
		return r.Method == string(mcp.MethodNotificationMessage) && r.Data("event") == event
	}
}

var rpcIDs atomic.Int64

// RPC sends a request the client library offers only as a deprecated call
// (resources/subscribe, logging/setLevel) and returns the server's error.
func RPC(c *client.Client, method string, params any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
		ID: mcp.NewRequestId(fmt.Sprintf("e2e-%d", rpcIDs.Add(1))), Method: method, Params: params})
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return fmt.Errorf("%d %s", resp.Error.Code, resp.Error.Message)
	}
	return nil
}

// ContentURI is the resource of a pane's content.
func ContentURI(pane string) string { return "tmux://panes/" + url.PathEscape(pane) + "/content" }
