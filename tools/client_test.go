package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// legacyClient connects an in-process client that speaks the 2025-11-25
// protocol: the initialize handshake, resources/subscribe and
// logging/setLevel, as the MCP clients in the field do. Its notifications
// are recorded.
func legacyClient(t *testing.T, srv *Server) (*client.Client, *notes) {
	t.Helper()
	c, err := client.NewInProcessClientWithOptions(srv.MCP, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err != nil {
		t.Fatalf("NewInProcessClientWithOptions: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	n := newNotes()
	c.OnNotification(n.add)
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "legacy-test", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	if got := c.ProtocolVersion(); got != mcp.LATEST_LEGACY_PROTOCOL_VERSION {
		t.Fatalf("negotiated %q, want %q", got, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	}
	return c, n
}

var rpcIDs atomic.Int64

// rpc sends one request on c's transport and returns the error the server
// answered, if any. It speaks the methods the client library only offers
// as deprecated calls (resources/subscribe, logging/setLevel).
func rpc(c *client.Client, method string, params any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
		ID: mcp.NewRequestId(fmt.Sprintf("t%d", rpcIDs.Add(1))), Method: method, Params: params})
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return fmt.Errorf("%d %s", resp.Error.Code, resp.Error.Message)
	}
	return nil
}

func subscribe(c *client.Client, uri string) error {
	return rpc(c, string(mcp.MethodResourcesSubscribe), map[string]any{"uri": uri})
}

func unsubscribe(c *client.Client, uri string) error {
	return rpc(c, string(mcp.MethodResourcesUnsubscribe), map[string]any{"uri": uri})
}

func setLevel(c *client.Client, level mcp.LoggingLevel) error {
	return rpc(c, string(mcp.MethodSetLogLevel), map[string]any{"level": level})
}

// note is one notification as received, with when it arrived.
type note struct {
	at     time.Time
	method string
	params map[string]any
	raw    string
}

func (n note) Str(key string) string { s, _ := n.params[key].(string); return s }

// notes records notifications.
type notes struct {
	mu     sync.Mutex
	all    []note
	signal chan struct{}
}

func newNotes() *notes { return &notes{signal: make(chan struct{}, 1)} }

func (n *notes) add(x mcp.JSONRPCNotification) {
	raw, _ := json.Marshal(x)
	var m struct {
		Params map[string]any `json:"params"`
	}
	_ = json.Unmarshal(raw, &m)
	n.mu.Lock()
	n.all = append(n.all, note{at: time.Now(), method: x.Method, params: m.Params, raw: string(raw)})
	n.mu.Unlock()
	select {
	case n.signal <- struct{}{}:
	default:
	}
}

// since returns the notifications from index i on.
func (n *notes) since(i int) []note {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]note(nil), n.all[min(i, len(n.all)):]...)
}

func (n *notes) len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.all)
}

// wait returns the first notification from index i on that ok accepts,
// failing the test after timeout.
func (n *notes) wait(t testing.TB, i int, timeout time.Duration, what string, ok func(note) bool) note {
	t.Helper()
	deadline := time.After(timeout)
	for {
		for _, x := range n.since(i) {
			if ok(x) {
				return x
			}
		}
		select {
		case <-n.signal:
		case <-deadline:
			t.Fatalf("no %s within %v; got %s", what, timeout, n.describe(i))
		}
	}
}

func (n *notes) describe(i int) string {
	var b strings.Builder
	for _, x := range n.since(i) {
		b.WriteString("\n  " + x.raw)
	}
	return b.String()
}

// updated accepts a notifications/resources/updated for uri.
func updated(uri string) func(note) bool {
	return func(x note) bool {
		return x.method == string(mcp.MethodNotificationResourceUpdated) && x.Str("uri") == uri
	}
}

func isLog(x note) bool { return x.method == string(mcp.MethodNotificationMessage) }

// goroutinesIn counts the goroutines whose stack mentions fn: a leak check
// aimed at the goroutines one piece of code starts (the supervisor's stay
// up for the whole test).
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			count++
		}
	}
	return count
}
