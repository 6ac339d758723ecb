package taskext

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// post sends one 2026-07-28 request with the headers SEP-2243 asks for
// (name as Mcp-Name) and returns the status and the messages of the body.
func post(t *testing.T, url, method, name string, params map[string]any) (int, []map[string]any) {
	t.Helper()
	p := map[string]any{"_meta": declaring}
	for k, v := range params {
		p[k] = v
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, "2026-07-28")
	req.Header.Set(mcp.HeaderMethod, method)
	if name != "" {
		req.Header.Set(mcp.HeaderName, name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "data: ")
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return resp.StatusCode, out
}

func TestHTTPLayer(t *testing.T) {
	m := New(Options{Budget: 50 * time.Millisecond})
	hooks := &server.Hooks{}
	m.ListenHook(hooks)
	s := server.NewMCPServer("t", "1", append([]server.ServerOption{server.WithToolCapabilities(true), server.WithHooks(hooks)},
		m.ServerOptions()...)...)
	s.AddTools(sleeper(mcp.TaskSupportOptional))
	m.Adapt(s)
	ts := httptest.NewServer(m.HTTP(server.NewStreamableHTTPServer(s)))
	defer ts.Close()
	url := ts.URL + "/mcp"

	status, msgs := post(t, url, "tools/call", "sleeper", map[string]any{"name": "sleeper", "arguments": map[string]any{"seconds": 0.3}})
	if status != http.StatusOK || len(msgs) != 1 {
		t.Fatalf("tools/call: got %d %v", status, msgs)
	}
	r := result(t, msgs[0])
	id, _ := r["taskId"].(string)
	if r["resultType"] != "task" || id == "" {
		t.Fatalf("tools/call: got %v, want a CreateTaskResult", r)
	}

	tests := []struct {
		name       string
		header     string
		wantStatus int
		wantCode   int
	}{
		{"Mcp-Name is not the task", "other", http.StatusBadRequest, mcp.HEADER_MISMATCH},
		{"Mcp-Name missing", "", http.StatusBadRequest, mcp.HEADER_MISMATCH},
		{"Mcp-Name is the task", id, http.StatusOK, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, msgs := post(t, url, "tasks/get", tt.header, map[string]any{"taskId": id})
			if status != tt.wantStatus || len(msgs) != 1 {
				t.Fatalf("got %d %v, want %d", status, msgs, tt.wantStatus)
			}
			if tt.wantCode != 0 {
				if got := errorCode(t, msgs[0]); got != tt.wantCode {
					t.Errorf("code: got %d, want %d", got, tt.wantCode)
				}
			} else if result(t, msgs[0])["taskId"] != id {
				t.Errorf("tasks/get: got %v", msgs[0])
			}
		})
	}

	// A subscription streams the task's end, as events: one for tasks
	// only (the layer's), and one for tasks and tool list changes
	// (mcp-go's).
	for _, notes := range []map[string]any{
		{"taskIds": []string{id}},
		{"taskIds": []string{id}, "toolsListChanged": true},
	} {
		if got := listenHTTP(t, url, notes); len(got) < 2 || got[0] != "notifications/subscriptions/acknowledged tasks 1" ||
			got[len(got)-1] != "notifications/tasks completed" {
			t.Errorf("listen %v: got %v, want the acknowledgement with the task, then notifications/tasks to completed", notes, got)
		}
	}
}

// listenHTTP opens a subscriptions/listen stream for notes and returns
// its messages, until a task's completed notification.
func listenHTTP(t *testing.T, url string, notes map[string]any) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
		"params": map[string]any{"_meta": declaring, "notifications": notes}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, "2026-07-28")
	req.Header.Set(mcp.HeaderMethod, "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("listen: Content-Type %q, want text/event-stream", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	var got []string
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatal(err)
		}
		p, _ := m["params"].(map[string]any)
		switch m["method"] {
		case "notifications/subscriptions/acknowledged":
			ids, _ := p["notifications"].(map[string]any)["taskIds"].([]any)
			got = append(got, fmt.Sprintf("%s tasks %d", m["method"], len(ids)))
		case "notifications/tasks":
			got = append(got, fmt.Sprintf("%s %s", m["method"], p["status"]))
			if meta, _ := p["_meta"].(map[string]any); meta[mcp.MetaKeySubscriptionID] != 7.0 {
				t.Errorf("task notification tagged %v, want 7", meta)
			}
			if p["status"] == "completed" {
				return got
			}
		default:
			got = append(got, fmt.Sprint(m["method"]))
		}
	}
	return got
}
