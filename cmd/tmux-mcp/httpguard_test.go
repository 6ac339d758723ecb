package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestHTTPGetNeedsASession: the notification stream (GET /mcp) is opened
// only for a session that was initialized; without a session ID the
// answer is 400, with an unknown one 404, and a client of protocol
// 2026-07-28 (no GET stream) is told 405.
func TestHTTPGetNeedsASession(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := startHTTP(t, tm)
	url := p.URL
	hc := &http.Client{Timeout: 10 * time.Second}

	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+p.Token)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %s, session %q; want 200 and a session ID", resp.Status, session)
	}

	get := func(headers map[string]string) *http.Response {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", "Bearer "+p.Token)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := (&http.Client{}).Do(req) // a stream: no client timeout
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for _, tt := range []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"no session", nil, http.StatusBadRequest},
		{"unknown session", map[string]string{"Mcp-Session-Id": "mcp-session-00000000-0000-0000-0000-000000000000"}, http.StatusNotFound},
		{"not a session ID", map[string]string{"Mcp-Session-Id": "bogus"}, http.StatusNotFound},
		{"2026-07-28 client", map[string]string{mcp.HeaderProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}, http.StatusMethodNotAllowed},
		{"initialized session", map[string]string{"Mcp-Session-Id": session}, http.StatusOK},
	} {
		resp := get(tt.headers)
		if resp.StatusCode != tt.want {
			t.Errorf("GET /mcp, %s: %s, want %d", tt.name, resp.Status, tt.want)
		}
		if tt.want == http.StatusOK && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Errorf("GET /mcp, %s: Content-Type %q, want an event stream", tt.name, resp.Header.Get("Content-Type"))
		}
	}
}
