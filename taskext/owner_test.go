package taskext

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func TestHTTPOwner(t *testing.T) {
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	a := httpOwner(h("Authorization", "Bearer tok", "Mcp-Session-Id", "s1"))
	tests := []struct {
		name       string
		h          http.Header
		same, list bool
	}{
		{"the same credential and session", h("Authorization", "bearer  tok ", "Mcp-Session-Id", "s1"), true, true},
		{"another session", h("Authorization", "Bearer tok", "Mcp-Session-Id", "s2"), false, true},
		{"another credential", h("Authorization", "Bearer other", "Mcp-Session-Id", "s1"), false, true},
		{"no session", h("Authorization", "Bearer tok"), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := httpOwner(tt.h)
			if got := o.Key == a.Key; got != tt.same {
				t.Errorf("same owner as A: got %v, want %v", got, tt.same)
			}
			if o.Listed != tt.list {
				t.Errorf("Listed: got %v, want %v", o.Listed, tt.list)
			}
			if bytes.Contains([]byte(o.Key), []byte("tok")) {
				t.Errorf("key %q holds the credential", o.Key)
			}
		})
	}
}

// TestTaskOfAnotherCaller: over HTTP, a task made with one credential is
// not found with another, the same answer as an ID that never existed;
// its own caller finds it.
func TestTaskOfAnotherCaller(t *testing.T) {
	m := New(Options{Budget: 10 * time.Millisecond})
	s := server.NewMCPServer("t", "1", append([]server.ServerOption{server.WithToolCapabilities(true)}, m.ServerOptions()...)...)
	s.AddTools(sleeper(mcp.TaskSupportOptional))
	m.Adapt(s)
	ts := httptest.NewServer(m.HTTP(server.NewStreamableHTTPServer(s)))
	defer ts.Close()
	as := func(cred, method, name string, params map[string]any) map[string]any {
		t.Helper()
		p := map[string]any{"_meta": declaring}
		for k, v := range params {
			p[k] = v
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+cred)
		req.Header.Set(mcp.HeaderProtocolVersion, "2026-07-28")
		req.Header.Set(mcp.HeaderMethod, method)
		req.Header.Set(mcp.HeaderName, name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var msg map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
			t.Fatal(err)
		}
		return msg
	}
	r := result(t, as("a", "tools/call", "sleeper", map[string]any{"name": "sleeper", "arguments": map[string]any{"seconds": 60}}))
	id, _ := r["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %v, want a task", r)
	}
	never := as("b", "tasks/get", "t0", map[string]any{"taskId": "t0"})["error"].(map[string]any)
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		got, _ := as("b", method, id, map[string]any{"taskId": id})["error"].(map[string]any)
		if got == nil || got["code"] != never["code"] {
			t.Errorf("%s of another credential's task: got %v, want %v as for an unknown ID", method, got, never)
		}
	}
	if got := result(t, as("a", "tasks/get", id, map[string]any{"taskId": id})); got["status"] != "working" {
		t.Errorf("tasks/get of its own task: got %v, want working", got)
	}
	result(t, as("a", "tasks/cancel", id, map[string]any{"taskId": id}))
}
