package e2etest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// InitializeBody is an initialize request of protocol 2025-11-25.
const InitializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// RPCCaller is one caller of the binary's streamable HTTP endpoint,
// speaking JSON-RPC itself: a client of protocol 2025-11-25 in a session
// of its own, or a client of 2026-07-28 (no session) that declares the
// tasks extension.
type RPCCaller struct {
	t       *testing.T
	p       *HTTP
	modern  bool
	session string
	id      int
}

// LegacyCaller opens a session of protocol 2025-11-25.
func LegacyCaller(t *testing.T, p *HTTP) *RPCCaller {
	t.Helper()
	c := &RPCCaller{t: t, p: p}
	resp, body := p.Post(t, nil, InitializeBody, p.Auth())
	c.session = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || c.session == "" {
		t.Fatalf("initialize: %d, session %q: %s", resp.StatusCode, c.session, body)
	}
	c.Post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "notifications/initialized", "")
	return c
}

// Modern reports whether c speaks protocol 2026-07-28 (no session).
func (c *RPCCaller) Modern() bool { return c.modern }

// ModernCaller is a client of protocol 2026-07-28 with the tasks
// extension.
func ModernCaller(t *testing.T, p *HTTP) *RPCCaller {
	return &RPCCaller{t: t, p: p, modern: true}
}

var modernMeta = map[string]any{
	"io.modelcontextprotocol/protocolVersion": "2026-07-28",
	"io.modelcontextprotocol/clientInfo":      map[string]any{"name": "owner-test", "version": "0"},
	"io.modelcontextprotocol/clientCapabilities": map[string]any{
		"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
}

// Body frames a request of method with params, and returns it with its
// Mcp-Name (SEP-2243).
func (c *RPCCaller) Body(method string, params map[string]any) (string, string) {
	c.id++
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	if c.modern {
		p["_meta"] = modernMeta
	}
	var name string
	switch {
	case p["name"] != nil:
		name = fmt.Sprint(p["name"])
	case p["taskId"] != nil:
		name = fmt.Sprint(p["taskId"])
	case p["uri"] != nil:
		name = fmt.Sprint(p["uri"])
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": p})
	return string(b), name
}

func (c *RPCCaller) Headers(method, name string) map[string]string {
	h := c.p.Auth()
	if c.modern {
		h["Mcp-Protocol-Version"] = "2026-07-28"
		h["Mcp-Method"] = method
		if name != "" {
			h["Mcp-Name"] = name
		}
	} else {
		h["Mcp-Protocol-Version"] = "2025-11-25"
		h["Mcp-Session-Id"] = c.session
	}
	return h
}

// Post sends a frame and returns the response's body.
func (c *RPCCaller) Post(frame, method, name string) (*http.Response, string) {
	c.t.Helper()
	return c.p.Post(c.t, &http.Client{Timeout: 30 * time.Second}, frame, c.Headers(method, name))
}

// Request sends a request and returns the response to it: its result or
// its error.
func (c *RPCCaller) Request(method string, params map[string]any) map[string]any {
	c.t.Helper()
	frame, name := c.Body(method, params)
	resp, body := c.Post(frame, method, name)
	msgs := []string{body}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msgs = nil
		for _, line := range strings.Split(body, "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				msgs = append(msgs, data)
			}
		}
	}
	for _, m := range msgs {
		var msg map[string]any
		if json.Unmarshal([]byte(m), &msg) == nil && msg["id"] == float64(c.id) {
			return msg
		}
	}
	c.t.Fatalf("%s: %d, no response to request %d in %q", method, resp.StatusCode, c.id, body)
	return nil
}

// Result is request's result, failing the test on an error.
func (c *RPCCaller) Result(method string, params map[string]any) map[string]any {
	c.t.Helper()
	msg := c.Request(method, params)
	r, ok := msg["result"].(map[string]any)
	if !ok {
		c.t.Fatalf("%s %v: got %v, want a result", method, params, msg)
	}
	return r
}

// Tool calls a tool and returns its structured content, or its error
// class (error_type) for a tool error.
func (c *RPCCaller) Tool(name string, args map[string]any) (map[string]any, string) {
	c.t.Helper()
	r := c.Result("tools/call", map[string]any{"name": name, "arguments": args})
	if r["isError"] == true {
		meta, _ := r["_meta"].(map[string]any)
		return nil, fmt.Sprint(meta["error_type"])
	}
	sc, _ := r["structuredContent"].(map[string]any)
	return sc, ""
}

// ListedJobs is list_jobs' job IDs, with the task status of each.
func (c *RPCCaller) ListedJobs() map[string]string {
	c.t.Helper()
	sc, class := c.Tool("list_jobs", map[string]any{})
	if class != "" {
		c.t.Fatalf("list_jobs: %s", class)
	}
	out := map[string]string{}
	list, _ := sc["jobs"].([]any)
	for _, j := range list {
		m, _ := j.(map[string]any)
		out[fmt.Sprint(m["job_id"])] = fmt.Sprint(m["task_status"])
	}
	return out
}

// ListenAck opens a subscriptions/listen stream for ids and returns the
// task IDs its acknowledgement accepted.
func (c *RPCCaller) ListenAck(ids []string) []string {
	c.t.Helper()
	frame, _ := c.Body("subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": ids}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.p.URL, strings.NewReader(frame))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range c.Headers("subscriptions/listen", "") {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				Notifications struct {
					TaskIDs []string `json:"taskIds"`
				} `json:"notifications"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(data), &m) == nil && m.Method == "notifications/subscriptions/acknowledged" {
			return m.Params.Notifications.TaskIDs
		}
	}
	b, _ := io.ReadAll(resp.Body)
	c.t.Fatalf("subscriptions/listen: %d, no acknowledgement (%v) %s", resp.StatusCode, sc.Err(), b)
	return nil
}
