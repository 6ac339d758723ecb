//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The fixtures are driven as the conformance suite drives them: JSON-RPC
// requests of protocol 2026-07-28, each with its _meta (protocol version
// and client capabilities), here through mcp-go's in-process transport.
// What goes through the tasks layer, and over HTTP, `make conformance`
// checks with the suite itself.

// conn is an in-process client of a server with every fixture.
type conn struct {
	t     *testing.T
	tr    *transport.InProcessTransport
	ids   atomic.Int64
	mu    sync.Mutex
	notes []mcp.JSONRPCNotification
	heard chan struct{}
}

func connect(t *testing.T) *conn {
	t.Helper()
	s := server.NewMCPServer("conformance-test", "0", server.WithToolCapabilities(false),
		server.WithPromptCapabilities(false), server.WithResourceCapabilities(false, false), server.WithLogging())
	Register(s)
	c := &conn{t: t, tr: transport.NewInProcessTransport(s), heard: make(chan struct{}, 100)}
	c.tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		c.mu.Lock()
		c.notes = append(c.notes, n)
		c.mu.Unlock()
		c.heard <- struct{}{}
	})
	if err := c.tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.tr.Close() })
	// The session must be initialized for notifications to reach it.
	c.legacy("initialize", map[string]any{"protocolVersion": mcp.LATEST_LEGACY_PROTOCOL_VERSION,
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "0"}})
	if err := c.tr.SendNotification(context.Background(), mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: "notifications/initialized"}}); err != nil {
		t.Fatal(err)
	}
	return c
}

// legacy sends a request without _meta.
func (c *conn) legacy(method string, params map[string]any) json.RawMessage {
	c.t.Helper()
	res, rpcErr := c.send(method, params)
	if rpcErr != nil {
		c.t.Fatalf("%s: %d %s", method, rpcErr.Code, rpcErr.Message)
	}
	return res
}

// request sends a 2026-07-28 request: params with a _meta naming the
// protocol version, the client capabilities caps and meta's other keys.
func (c *conn) request(method string, params map[string]any, caps map[string]any, meta map[string]any) (json.RawMessage, *mcp.JSONRPCErrorDetails) {
	c.t.Helper()
	m := map[string]any{mcp.MetaKeyProtocolVersion: mcp.ProtocolVersion20260728, mcp.MetaKeyClientCapabilities: caps}
	for k, v := range meta {
		m[k] = v
	}
	p := map[string]any{"_meta": m}
	for k, v := range params {
		p[k] = v
	}
	return c.send(method, p)
}

func (c *conn) send(method string, params map[string]any) (json.RawMessage, *mcp.JSONRPCErrorDetails) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	resp, err := c.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
		ID: mcp.NewRequestId(c.ids.Add(1)), Method: method, Params: params})
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return resp.Result, resp.Error
}

// wire is a result as the suite reads it.
type wire struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
	IsError       bool                       `json:"isError"`
	Content       []struct {
		Type, Text, Data, MimeType string
		Resource                   *struct{ URI, MimeType, Text string }
	} `json:"content"`
	Messages []json.RawMessage `json:"messages"`
}

// call calls a tool with args (and the round trip's answers and state in
// more) from a client with caps, and fails on a JSON-RPC error.
func (c *conn) call(name string, caps map[string]any, more map[string]any) wire {
	c.t.Helper()
	res, rpcErr := c.callRaw(name, caps, more)
	if rpcErr != nil {
		c.t.Fatalf("%s: JSON-RPC error %d %s", name, rpcErr.Code, rpcErr.Message)
	}
	return res
}

func (c *conn) callRaw(name string, caps map[string]any, more map[string]any) (wire, *mcp.JSONRPCErrorDetails) {
	c.t.Helper()
	params := map[string]any{"name": name, "arguments": map[string]any{}}
	for k, v := range more {
		params[k] = v
	}
	raw, rpcErr := c.request("tools/call", params, caps, nil)
	var w wire
	if rpcErr == nil {
		if err := json.Unmarshal(raw, &w); err != nil {
			c.t.Fatalf("%s: %v: %s", name, err, raw)
		}
	}
	return w, rpcErr
}

func (w wire) text() string {
	var b strings.Builder
	for _, c := range w.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// keys are the keys of the input requests, sorted.
func (w wire) keys() []string { return slices.Sorted(maps.Keys(w.InputRequests)) }

func accept(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

var (
	noCaps  = map[string]any{}
	allCaps = map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}
)

// TestRegisterListsEveryFixture: every fixture is listed, under the name
// the suite calls, and the tools of the tasks scenarios say their task
// support.
func TestRegisterListsEveryFixture(t *testing.T) {
	c := connect(t)
	names := List()
	var tools struct {
		Tools []struct {
			Name      string
			Execution *struct{ TaskSupport string }
		}
	}
	raw, _ := c.request("tools/list", nil, noCaps, nil)
	if err := json.Unmarshal(raw, &tools); err != nil {
		t.Fatal(err)
	}
	support := map[string]string{}
	for _, tool := range tools.Tools {
		support[tool.Name] = ""
		if tool.Execution != nil {
			support[tool.Name] = tool.Execution.TaskSupport
		}
	}
	for _, want := range []string{"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_error_handling", "test_tool_with_logging", "test_tool_with_progress",
		"json_schema_2020_12_tool", "test_param_header", "test_missing_capability", "test_streaming_elicitation",
		"test_logging_tool", "test_input_required_result_elicitation", "test_input_required_result_sampling",
		"test_input_required_result_list_roots", "test_input_required_result_request_state",
		"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
		"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
		"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input", "test_tool_with_task"} {
		if _, ok := support[want]; !ok {
			t.Errorf("tools/list lacks %s", want)
		}
		if !slices.Contains(names.Tools, want) {
			t.Errorf("List().Tools lacks %s", want)
		}
	}
	if len(support) != len(names.Tools) {
		t.Errorf("tools/list has %d tools, List %d", len(support), len(names.Tools))
	}
	for tool, want := range map[string]string{"greet": "", "slow_compute": "optional", "failing_job": "required",
		"protocol_error_job": "optional", "confirm_delete": "optional", "multi_input": "optional",
		"test_tool_with_task": "required", "test_simple_text": ""} {
		if support[tool] != want {
			t.Errorf("%s: task support %q, want %q", tool, support[tool], want)
		}
	}
	type entry struct {
		Name, URI   string
		URITemplate string `json:"uriTemplate"`
	}
	var lists struct {
		Prompts, Resources []entry
		Templates          []entry `json:"resourceTemplates"`
	}
	for _, method := range []string{"prompts/list", "resources/list", "resources/templates/list"} {
		raw, rpcErr := c.request(method, nil, noCaps, nil)
		if rpcErr != nil {
			t.Fatalf("%s: %s", method, rpcErr.Message)
		}
		if err := json.Unmarshal(raw, &lists); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []struct {
		got  []entry
		key  func(entry) string
		want []string
	}{
		{lists.Prompts, func(e entry) string { return e.Name }, names.Prompts},
		{lists.Resources, func(e entry) string { return e.URI }, names.Resources},
		{lists.Templates, func(e entry) string { return e.URITemplate }, names.Templates},
	} {
		var got []string
		for _, e := range l.got {
			got = append(got, l.key(e))
		}
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(l.want))) {
			t.Errorf("listed %v, want %v", got, l.want)
		}
	}
}

// TestContentTools: each content fixture answers with the content its
// scenario checks.
func TestContentTools(t *testing.T) {
	c := connect(t)
	for tool, want := range map[string]string{
		"test_simple_text":            "text",
		"test_image_content":          "image:image/png",
		"test_audio_content":          "audio:audio/wav",
		"test_embedded_resource":      "resource:test://embedded-resource",
		"test_multiple_content_types": "text image:image/png resource:test://mixed-content-resource",
	} {
		w := c.call(tool, noCaps, nil)
		var got []string
		for _, ct := range w.Content {
			switch {
			case ct.Resource != nil:
				got = append(got, ct.Type+":"+ct.Resource.URI)
			case ct.MimeType != "":
				if ct.Data == "" {
					t.Errorf("%s: %s content without data", tool, ct.Type)
				}
				got = append(got, ct.Type+":"+ct.MimeType)
			default:
				got = append(got, ct.Type)
			}
		}
		if strings.Join(got, " ") != want || w.IsError {
			t.Errorf("%s: content %v (isError %v), want %s", tool, got, w.IsError, want)
		}
	}
	if w := c.call("test_error_handling", noCaps, nil); !w.IsError || w.text() == "" {
		t.Errorf("test_error_handling: isError %v, text %q; want a tool error with a message", w.IsError, w.text())
	}
}

// TestElicitationRoundTrip: the first call asks the user's name; the
// call with the answer greets; an answer under another key, or one that is
// no answer, is asked again; keys it did not ask are ignored.
func TestElicitationRoundTrip(t *testing.T) {
	c := connect(t)
	const tool = "test_input_required_result_elicitation"
	r1 := c.call(tool, allCaps, nil)
	if r1.ResultType != "input_required" || !slices.Equal(r1.keys(), []string{"user_name"}) {
		t.Fatalf("round 1: %+v, want input_required asking user_name", r1)
	}
	r2 := c.call(tool, allCaps, map[string]any{"requestState": r1.RequestState,
		"inputResponses": map[string]any{"user_name": accept(map[string]any{"name": "Alice"})}})
	if r2.ResultType != "complete" || r2.text() != "Hello, Alice!" {
		t.Errorf("round 2: %+v, want Hello, Alice!", r2)
	}
	for name, responses := range map[string]any{
		"wrong key": map[string]any{"wrong_key": accept(map[string]any{"data": "wrong"})},
		"no answer": map[string]any{"user_name": 12345},
		"null":      nil,
	} {
		if w := c.call(tool, allCaps, map[string]any{"inputResponses": responses}); w.ResultType != "input_required" {
			t.Errorf("%s: %+v, want the question again", name, w)
		}
	}
	extra := c.call(tool, allCaps, map[string]any{"inputResponses": map[string]any{
		"user_name": accept(map[string]any{"name": "Alice"}), "unknown_extra_key": accept(map[string]any{"foo": "bar"})}})
	if extra.text() != "Hello, Alice!" {
		t.Errorf("extra keys: %+v, want Hello, Alice!", extra)
	}
}

// TestTamperedStateRefused: a requestState changed by the client, or one
// issued to another fixture, ends the call with a JSON-RPC error.
func TestTamperedStateRefused(t *testing.T) {
	c := connect(t)
	r1 := c.call("test_input_required_result_tampered_state", allCaps, nil)
	if r1.RequestState == "" {
		t.Fatalf("round 1: %+v, want a requestState", r1)
	}
	other := c.call("test_input_required_result_request_state", allCaps, nil)
	ok := map[string]any{"confirm": accept(map[string]any{"ok": true})}
	for name, state := range map[string]string{"tampered": r1.RequestState + "-TAMPERED", "another fixture's": other.RequestState} {
		if _, rpcErr := c.callRaw("test_input_required_result_tampered_state", allCaps,
			map[string]any{"requestState": state, "inputResponses": ok}); rpcErr == nil {
			t.Errorf("%s state: no JSON-RPC error", name)
		}
	}
	w := c.call("test_input_required_result_tampered_state", allCaps, map[string]any{"requestState": r1.RequestState, "inputResponses": ok})
	if !strings.Contains(w.text(), "integrity-ok") {
		t.Errorf("the state as issued: %+v, want integrity-ok", w)
	}
}

// TestMultiRound: three rounds, each with a state of its own.
func TestMultiRound(t *testing.T) {
	c := connect(t)
	const tool = "test_input_required_result_multi_round"
	r1 := c.call(tool, allCaps, nil)
	r2 := c.call(tool, allCaps, map[string]any{"requestState": r1.RequestState,
		"inputResponses": map[string]any{"step1": accept(map[string]any{"name": "Alice"})}})
	if r2.ResultType != "input_required" || !slices.Equal(r2.keys(), []string{"step2"}) || r2.RequestState == r1.RequestState {
		t.Fatalf("round 2: %+v, want step2 with a new state", r2)
	}
	r3 := c.call(tool, allCaps, map[string]any{"requestState": r2.RequestState,
		"inputResponses": map[string]any{"step2": accept(map[string]any{"color": "blue"})}})
	if r3.text() != "Multi-round complete for Alice who likes blue" {
		t.Errorf("round 3: %+v", r3)
	}
}

// TestAnswersOneAtATime: multi_input (called without the tasks layer)
// keeps the first answer in its state and asks only the second again.
func TestAnswersOneAtATime(t *testing.T) {
	c := connect(t)
	r1 := c.call("multi_input", allCaps, nil)
	if !slices.Equal(r1.keys(), []string{"first", "second"}) {
		t.Fatalf("round 1: %+v, want first and second", r1)
	}
	r2 := c.call("multi_input", allCaps, map[string]any{"requestState": r1.RequestState,
		"inputResponses": map[string]any{"first": accept(map[string]any{"name": "partial-1"})}})
	if !slices.Equal(r2.keys(), []string{"second"}) {
		t.Fatalf("round 2: %+v, want second only", r2)
	}
	r3 := c.call("multi_input", allCaps, map[string]any{"requestState": r2.RequestState,
		"inputResponses": map[string]any{"second": accept(map[string]any{"name": "partial-2"})}})
	if r3.text() != "first: partial-1; second: partial-2" {
		t.Errorf("round 3: %+v", r3)
	}
}

// TestMultipleInputs: one round asks an elicitation, a sampling and the
// roots; the next answers them all.
func TestMultipleInputs(t *testing.T) {
	c := connect(t)
	const tool = "test_input_required_result_multiple_inputs"
	r1 := c.call(tool, allCaps, nil)
	if !slices.Equal(r1.keys(), []string{"client_roots", "greeting", "user_name"}) {
		t.Fatalf("round 1: %+v", r1)
	}
	r2 := c.call(tool, allCaps, map[string]any{"requestState": r1.RequestState, "inputResponses": map[string]any{
		"user_name": accept(map[string]any{"name": "Alice"}),
		"greeting": map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Hello there!"},
			"model": "test-model"},
		"client_roots": map[string]any{"roots": []any{map[string]any{"uri": "file:///test/root", "name": "Test Root"}}},
	}})
	if r2.text() != "Name: Alice; Greeting: Hello there!; Roots: 1" {
		t.Errorf("round 2: %+v", r2)
	}
}

// TestCapabilitiesAskOnlyDeclared: the questions follow the capabilities
// the request declared.
func TestCapabilitiesAskOnlyDeclared(t *testing.T) {
	c := connect(t)
	const tool = "test_input_required_result_capabilities"
	if w := c.call(tool, map[string]any{"sampling": map[string]any{}}, nil); !slices.Equal(w.keys(), []string{"sample_input"}) {
		t.Errorf("sampling only: %+v, want sample_input only", w)
	}
	if w := c.call(tool, allCaps, nil); !slices.Equal(w.keys(), []string{"elicit_input", "sample_input"}) {
		t.Errorf("both: %+v", w)
	}
	if w := c.call(tool, noCaps, nil); w.ResultType != "complete" {
		t.Errorf("none: %+v, want an answer without questions", w)
	}
}

// TestMissingCapability: without sampling the call fails with an error
// that carries -32021 and the capability; with it, it succeeds.
func TestMissingCapability(t *testing.T) {
	c := connect(t)
	if _, rpcErr := c.callRaw("test_missing_capability", noCaps, nil); rpcErr == nil {
		t.Error("without sampling: no JSON-RPC error")
	}
	if w := c.call("test_missing_capability", map[string]any{"sampling": map[string]any{}}, nil); w.text() != "Success" {
		t.Errorf("with sampling: %+v", w)
	}
	var coded interface {
		JSONRPCCode() int
		JSONRPCData() any
	}
	err := error(&capabilityError{capability: "sampling"})
	if !errors.As(err, &coded) || coded.JSONRPCCode() != mcp.MISSING_REQUIRED_CLIENT_CAPABILITY ||
		fmt.Sprint(coded.JSONRPCData()) != "map[requiredCapabilities:map[sampling:map[]]]" {
		t.Errorf("capabilityError: %v", err)
	}
	if !mcp.IsMissingRequiredClientCapability(err) {
		t.Error("capabilityError is not mcp-go's MissingRequiredClientCapabilityError")
	}
}

// TestPromptAsks: the prompt asks its context, then answers with it.
func TestPromptAsks(t *testing.T) {
	c := connect(t)
	raw, _ := c.request("prompts/get", map[string]any{"name": "test_input_required_result_prompt"}, allCaps, nil)
	var r1 wire
	if err := json.Unmarshal(raw, &r1); err != nil || !slices.Equal(r1.keys(), []string{"user_context"}) {
		t.Fatalf("round 1: %s", raw)
	}
	raw, rpcErr := c.request("prompts/get", map[string]any{"name": "test_input_required_result_prompt",
		"requestState": r1.RequestState, "inputResponses": map[string]any{"user_context": accept(map[string]any{"context": "tmux"})}},
		allCaps, nil)
	if rpcErr != nil || !strings.Contains(string(raw), "Prompt with context: tmux") {
		t.Errorf("round 2: %s %v", raw, rpcErr)
	}
}

// TestSlowComputeEndsWhenCancelled: slow_compute returns the context's
// error as soon as its call is cancelled, not when its sleep is over.
func TestSlowComputeEndsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var req mcp.CallToolRequest
	req.Params.Arguments = map[string]any{"seconds": 600}
	done := make(chan error, 1)
	go func() {
		_, err := slowCompute(ctx, req)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("slow_compute returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("slow_compute did not end when its call was cancelled")
	}
}

// TestNotifications: progress under the request's token, 0 to 100; a log
// message only for a request that named a level.
func TestNotifications(t *testing.T) {
	c := connect(t)
	raw, rpcErr := c.request("tools/call", map[string]any{"name": "test_tool_with_progress", "arguments": map[string]any{}},
		noCaps, map[string]any{"progressToken": "p1"})
	if rpcErr != nil || !strings.Contains(string(raw), "p1") {
		t.Fatalf("test_tool_with_progress: %s %v", raw, rpcErr)
	}
	c.await(3)
	c.request("tools/call", map[string]any{"name": "test_logging_tool", "arguments": map[string]any{}}, noCaps, nil)
	c.request("tools/call", map[string]any{"name": "test_logging_tool", "arguments": map[string]any{}}, noCaps,
		map[string]any{mcp.MetaKeyLogLevel: "info"})
	c.await(4)
	c.mu.Lock()
	defer c.mu.Unlock()
	var got []string
	for _, n := range c.notes {
		got = append(got, fmt.Sprintf("%s %v %v", n.Method, n.Params.AdditionalFields["progress"], n.Params.AdditionalFields["data"]))
	}
	want := []string{"notifications/progress 0 <nil>", "notifications/progress 50 <nil>", "notifications/progress 100 <nil>",
		"notifications/message <nil> Diagnostic trace logging activated"}
	if !slices.Equal(got, want) {
		t.Errorf("notifications:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// await waits until n notifications have arrived.
func (c *conn) await(n int) {
	c.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		have := len(c.notes)
		c.mu.Unlock()
		if have >= n {
			return
		}
		select {
		case <-c.heard:
		case <-timeout:
			c.t.Fatalf("%d notifications after 10s, want %d", have, n)
		}
	}
}
