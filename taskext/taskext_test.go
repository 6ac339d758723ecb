package taskext

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// harness is mcp-go's stdio server behind the layer, driven as a client.
type harness struct {
	t   *testing.T
	in  *io.PipeWriter
	out *bufio.Scanner
	mu  sync.Mutex
	id  int
	// others are messages that answered no request (notifications).
	others chan map[string]any
	byID   map[int]chan map[string]any
}

// newHarness serves tools with a Manager of budget over stdio.
func newHarness(t *testing.T, budget time.Duration, tools ...server.ServerTool) (*harness, *Manager) {
	t.Helper()
	return newHarnessOf(t, Options{Budget: budget, PollInterval: 50 * time.Millisecond}, tools...)
}

// newHarnessOf serves tools with a Manager of opts over stdio.
func newHarnessOf(t *testing.T, opts Options, tools ...server.ServerTool) (*harness, *Manager) {
	t.Helper()
	m := New(opts)
	hooks := &server.Hooks{}
	m.ListHook(hooks)
	m.ListenHook(hooks)
	s := server.NewMCPServer("t", "1", append([]server.ServerOption{server.WithHooks(hooks),
		server.WithToolCapabilities(true), server.WithResourceCapabilities(true, true)}, m.ServerOptions()...)...)
	s.AddTools(tools...)
	m.Adapt(s)
	ctx, cancel := context.WithCancel(context.Background())
	cin, sin := io.Pipe()   // client writes sin? no: client -> server
	sout, cout := io.Pipe() // server -> client
	_ = cin
	// client writes to w, the layer reads r.
	r, w := io.Pipe()
	lctx, tin, tout := m.Stdio(ctx, r, cout)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = server.NewStdioServer(s).Listen(lctx, tin, tout)
	}()
	h := &harness{t: t, in: w, out: bufio.NewScanner(sout), others: make(chan map[string]any, 100), byID: map[int]chan map[string]any{}}
	h.out.Buffer(make([]byte, 1<<20), 1<<24)
	go h.read()
	t.Cleanup(func() {
		w.Close()
		cancel()
		cout.Close()
		sin.Close()
		<-done
	})
	return h, m
}

func (h *harness) read() {
	for h.out.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(h.out.Bytes(), &msg); err != nil {
			continue
		}
		if id, ok := msg["id"].(float64); ok && msg["method"] == nil {
			h.mu.Lock()
			ch := h.byID[int(id)]
			h.mu.Unlock()
			if ch != nil {
				ch <- msg
				continue
			}
		}
		h.others <- msg
	}
}

var declaring = map[string]any{
	mcp.MetaKeyProtocolVersion:    "2026-07-28",
	mcp.MetaKeyClientInfo:         map[string]any{"name": "test", "version": "1"},
	mcp.MetaKeyClientCapabilities: map[string]any{"extensions": map[string]any{Extension: map[string]any{}}},
}

var plain = map[string]any{
	mcp.MetaKeyProtocolVersion:    "2026-07-28",
	mcp.MetaKeyClientInfo:         map[string]any{"name": "test", "version": "1"},
	mcp.MetaKeyClientCapabilities: map[string]any{},
}

// send sends a request and returns its response.
func (h *harness) send(method string, params map[string]any, meta map[string]any) map[string]any {
	h.t.Helper()
	ch := h.start(method, params, meta)
	select {
	case msg := <-ch:
		return msg
	case <-time.After(10 * time.Second):
		h.t.Fatalf("%s: no answer", method)
		return nil
	}
}

func (h *harness) start(method string, params map[string]any, meta map[string]any) chan map[string]any {
	h.t.Helper()
	h.mu.Lock()
	h.id++
	id := h.id
	ch := make(chan map[string]any, 1)
	h.byID[id] = ch
	h.mu.Unlock()
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	p["_meta"] = meta
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": p})
	if _, err := h.in.Write(append(b, '\n')); err != nil {
		h.t.Fatal(err)
	}
	return ch
}

func result(t *testing.T, msg map[string]any) map[string]any {
	t.Helper()
	r, ok := msg["result"].(map[string]any)
	if !ok {
		t.Fatalf("want a result, got %v", msg)
	}
	return r
}

func errorCode(t *testing.T, msg map[string]any) int {
	t.Helper()
	e, ok := msg["error"].(map[string]any)
	if !ok {
		t.Fatalf("want an error, got %v", msg)
	}
	return int(e["code"].(float64))
}

// await polls tasks/get until the task's status is one of want.
func (h *harness) await(id string, want ...Status) map[string]any {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := result(h.t, h.send("tasks/get", map[string]any{"taskId": id}, declaring))
		for _, w := range want {
			if r["status"] == string(w) {
				return r
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("task %s stays %v, want %v", id, r["status"], want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sleeper sleeps its seconds argument, or until cancelled.
func sleeper(support mcp.TaskSupport) server.ServerTool {
	tool := mcp.NewTool("sleeper", mcp.WithNumber("seconds"))
	tool.Execution = &mcp.ToolExecution{TaskSupport: support}
	return server.ServerTool{Tool: tool, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		d := time.Duration(req.GetFloat("seconds", 0) * float64(time.Second))
		select {
		case <-time.After(d):
			return mcp.NewToolResultText("slept"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
}

func TestCallBecomesTask(t *testing.T) {
	h, _ := newHarness(t, 100*time.Millisecond, sleeper(mcp.TaskSupportOptional))
	tests := []struct {
		name     string
		seconds  float64
		meta     map[string]any
		wantTask bool
	}{
		{"ends within the budget", 0, declaring, false},
		{"outlasts the budget", 0.5, declaring, true},
		{"client without the extension", 0.5, plain, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := result(t, h.send("tools/call", map[string]any{"name": "sleeper", "arguments": map[string]any{"seconds": tt.seconds}}, tt.meta))
			if got := r["resultType"] == "task"; got != tt.wantTask {
				t.Fatalf("task: got %v, want %v (%v)", got, tt.wantTask, r)
			}
			if !tt.wantTask {
				if r["content"] == nil || r["taskId"] != nil {
					t.Fatalf("want a plain tool result, got %v", r)
				}
				return
			}
			for _, k := range []string{"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} {
				if r[k] == nil {
					t.Errorf("CreateTaskResult lacks %s: %v", k, r)
				}
			}
			for _, k := range []string{"content", "result", "error", "task", "_meta"} {
				if _, ok := r[k]; ok {
					t.Errorf("CreateTaskResult carries %s: %v", k, r)
				}
			}
			got := h.await(r["taskId"].(string), Completed)
			res := got["result"].(map[string]any)
			if text := res["content"].([]any)[0].(map[string]any)["text"]; text != "slept" {
				t.Errorf("result text: got %v, want slept", text)
			}
			if got["resultType"] != "complete" {
				t.Errorf("tasks/get resultType: got %v, want complete", got["resultType"])
			}
		})
	}
}

func TestTaskMethodsGated(t *testing.T) {
	h, _ := newHarness(t, time.Second, sleeper(mcp.TaskSupportRequired))
	tests := []struct {
		name   string
		method string
		params map[string]any
		meta   map[string]any
		want   int
	}{
		{"get without the extension", "tasks/get", map[string]any{"taskId": "x"}, plain, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY},
		{"update without the extension", "tasks/update", map[string]any{"taskId": "x", "inputResponses": map[string]any{}}, plain, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY},
		{"cancel without the extension", "tasks/cancel", map[string]any{"taskId": "x"}, plain, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY},
		{"unknown task", "tasks/get", map[string]any{"taskId": "x"}, declaring, mcp.INVALID_PARAMS},
		{"cancel of an unknown task", "tasks/cancel", map[string]any{"taskId": "x"}, declaring, mcp.INVALID_PARAMS},
		{"tasks/list is gone", "tasks/list", map[string]any{}, declaring, mcp.METHOD_NOT_FOUND},
		{"tasks/result is gone", "tasks/result", map[string]any{"taskId": "x"}, declaring, mcp.METHOD_NOT_FOUND},
		{"required tool without the extension", "tools/call", map[string]any{"name": "sleeper", "arguments": map[string]any{}}, plain, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorCode(t, h.send(tt.method, tt.params, tt.meta)); got != tt.want {
				t.Errorf("code: got %d, want %d", got, tt.want)
			}
		})
	}
	// The required tool is listed as required, and runs for a client
	// that declared the extension.
	list := result(t, h.send("tools/list", nil, declaring))
	exec := list["tools"].([]any)[0].(map[string]any)["execution"].(map[string]any)
	if exec["taskSupport"] != "required" {
		t.Errorf("taskSupport: got %v, want required", exec["taskSupport"])
	}
	r := result(t, h.send("tools/call", map[string]any{"name": "sleeper", "arguments": map[string]any{"seconds": 0}}, declaring))
	if r["content"] == nil {
		t.Errorf("required tool, extension declared: got %v, want its result", r)
	}
}

func TestCancelTask(t *testing.T) {
	h, _ := newHarness(t, 50*time.Millisecond, sleeper(mcp.TaskSupportOptional))
	r := result(t, h.send("tools/call", map[string]any{"name": "sleeper", "arguments": map[string]any{"seconds": 60}}, declaring))
	id := r["taskId"].(string)
	ack := result(t, h.send("tasks/cancel", map[string]any{"taskId": id}, declaring))
	if len(ack) != 1 || ack["resultType"] != "complete" {
		t.Errorf("cancel ack: got %v, want {resultType: complete}", ack)
	}
	h.await(id, Cancelled)
	again := result(t, h.send("tasks/cancel", map[string]any{"taskId": id}, declaring))
	if again["resultType"] != "complete" {
		t.Errorf("cancel of an ended task: got %v, want the same ack", again)
	}
}

func TestTaskFailures(t *testing.T) {
	fail := func(name string, h server.ToolHandlerFunc) server.ServerTool {
		tool := mcp.NewTool(name)
		tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
		return server.ServerTool{Tool: tool, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			From(ctx).Detach()
			return h(ctx, req)
		}}
	}
	h, _ := newHarness(t, time.Second,
		fail("tool_error", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("no such thing"), nil
		}),
		fail("go_error", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("broken")
		}),
		fail("panics", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("boom")
		}))
	tests := []struct {
		tool      string
		want      Status
		wantError bool
	}{
		{"tool_error", Completed, false},
		{"go_error", Failed, true},
		{"panics", Failed, true},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r := result(t, h.send("tools/call", map[string]any{"name": tt.tool}, declaring))
			got := h.await(r["taskId"].(string), tt.want)
			if _, has := got["error"]; has != tt.wantError {
				t.Errorf("error inlined: got %v, want %v (%v)", has, tt.wantError, got)
			}
			if _, has := got["result"]; has == tt.wantError {
				t.Errorf("result inlined: got %v, want %v", has, !tt.wantError)
			}
		})
	}
}

func TestTaskInput(t *testing.T) {
	elicit := func(msg string) mcp.InputRequest {
		return mcp.NewElicitationInputRequest(mcp.ElicitationParams{Message: msg,
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}})
	}
	ask := mcp.NewTool("ask")
	ask.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	// asks two questions through the task, then says what it heard.
	askTool := server.ServerTool{Tool: ask, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got, err := From(ctx).Input(ctx, mcp.InputRequests{"a": elicit("first?"), "b": elicit("second?")})
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(string(got["a"].Elicitation.Action) + "," + string(got["b"].Elicitation.Action)), nil
	}}
	// mrtr asks with a multi round-trip result, once it is a task.
	mrtr := mcp.NewTool("mrtr")
	mrtr.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	mrtrTool := server.ServerTool{Tool: mrtr, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		From(ctx).Detach()
		if r, ok := req.Params.InputResponses["c"]; ok {
			return mcp.NewToolResultText("answered " + string(r.Elicitation.Action) + " state " + req.Params.RequestState), nil
		}
		res := &mcp.CallToolResult{Result: mcp.Result{ResultType: mcp.ResultTypeInputRequired},
			MultiRoundTripResult: mcp.MultiRoundTripResult{InputRequests: mcp.InputRequests{"c": elicit("third?")}, RequestState: "s1"}}
		return res, nil
	}}
	h, _ := newHarness(t, time.Second, askTool, mrtrTool)
	accept := map[string]any{"action": "accept", "content": map[string]any{"ok": true}}
	decline := map[string]any{"action": "decline"}

	r := result(t, h.send("tools/call", map[string]any{"name": "ask"}, declaring))
	id := r["taskId"].(string)
	got := h.await(id, InputRequired)
	if n := len(got["inputRequests"].(map[string]any)); n != 2 {
		t.Fatalf("inputRequests: got %d, want 2 (%v)", n, got)
	}
	result(t, h.send("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"a": accept}}, declaring))
	got = h.await(id, InputRequired)
	if reqs := got["inputRequests"].(map[string]any); len(reqs) != 1 || reqs["b"] == nil {
		t.Fatalf("after a partial update: got %v, want only b pending", reqs)
	}
	result(t, h.send("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"b": decline, "zz": accept}}, declaring))
	got = h.await(id, Completed)
	if text := got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "accept,decline" {
		t.Errorf("answers: got %v, want accept,decline", text)
	}

	r = result(t, h.send("tools/call", map[string]any{"name": "mrtr"}, declaring))
	id = r["taskId"].(string)
	got = h.await(id, InputRequired)
	if got["inputRequests"].(map[string]any)["c"] == nil {
		t.Fatalf("inputRequests: got %v, want c", got)
	}
	result(t, h.send("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"c": accept}}, declaring))
	got = h.await(id, Completed)
	if text := got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; !strings.Contains(text.(string), "answered accept state s1") {
		t.Errorf("re-run with the answer: got %v", text)
	}
}

func TestTaskNotifications(t *testing.T) {
	h, _ := newHarness(t, 50*time.Millisecond, sleeper(mcp.TaskSupportOptional))
	r := result(t, h.send("tools/call", map[string]any{"name": "sleeper", "arguments": map[string]any{"seconds": 0.3}}, declaring))
	id := r["taskId"].(string)
	listen := h.start("subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{id, "unknown"}}}, declaring)
	var acked bool
	deadline := time.After(10 * time.Second)
	for {
		select {
		case msg := <-h.others:
			switch msg["method"] {
			case "notifications/subscriptions/acknowledged":
				ids := msg["params"].(map[string]any)["notifications"].(map[string]any)["taskIds"].([]any)
				if len(ids) != 1 || ids[0] != id {
					t.Errorf("acknowledged: got %v, want [%s]", ids, id)
				}
				acked = true
			case "notifications/tasks":
				p := msg["params"].(map[string]any)
				if !acked {
					t.Fatal("a task notification came before the acknowledgement")
				}
				if p["taskId"] != id {
					t.Errorf("notification for %v, want %s", p["taskId"], id)
				}
				if p["status"] == "completed" {
					if p["result"] == nil {
						t.Errorf("completed notification without its result: %v", p)
					}
					b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
						"params": map[string]any{"requestId": h.id}})
					h.in.Write(append(b, '\n')) //nolint:errcheck
					select {
					case end := <-listen:
						result(t, end)
					case <-time.After(5 * time.Second):
						t.Fatal("the listen request did not end when cancelled")
					}
					return
				}
			}
		case <-deadline:
			t.Fatal("no completed notification")
		}
	}
}

// TestTaskNotificationsBesideOthers: a listen for task states and for
// other notifications at once (mcp-go serves it) acknowledges both and
// streams the task's notifications, tagged with the subscription.
func TestTaskNotificationsBesideOthers(t *testing.T) {
	h, _ := newHarness(t, 50*time.Millisecond, sleeper(mcp.TaskSupportOptional))
	r := result(t, h.send("tools/call", map[string]any{"name": "sleeper", "arguments": map[string]any{"seconds": 0.3}}, declaring))
	id := r["taskId"].(string)
	h.start("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true, "taskIds": []string{id}}}, declaring)
	listenID := float64(h.id)
	var got []string
	deadline := time.After(10 * time.Second)
	for {
		select {
		case msg := <-h.others:
			p, _ := msg["params"].(map[string]any)
			meta, _ := p["_meta"].(map[string]any)
			switch msg["method"] {
			case "notifications/subscriptions/acknowledged":
				n := p["notifications"].(map[string]any)
				ids, _ := n["taskIds"].([]any)
				got = append(got, fmt.Sprintf("ack tools %v tasks %v", n["toolsListChanged"], ids))
			case "notifications/tasks":
				if meta[mcp.MetaKeySubscriptionID] != listenID {
					t.Errorf("task notification tagged %v, want %v", meta[mcp.MetaKeySubscriptionID], listenID)
				}
				for k := range p {
					if strings.HasPrefix(k, "io.github.tmux-mcp/") {
						t.Errorf("task notification carries the layer's key %s", k)
					}
				}
				got = append(got, "task "+p["status"].(string))
				if p["status"] == "completed" {
					want := []string{"ack tools true tasks [" + id + "]", "task working", "task completed"}
					if !slices.Equal(got, want) {
						t.Errorf("stream: got %q, want %q", got, want)
					}
					return
				}
			}
		case <-deadline:
			t.Fatalf("no completed notification; stream so far %q", got)
		}
	}
}
