package telemetry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"github.com/tmux-mcp/tmux-mcp/tools"
)

// tracedEnv is an isolated tmux server, a supervisor, and the MCP server
// with the binary's telemetry recording into memory, driven by an
// in-process client.
type tracedEnv struct {
	t       *testing.T
	tm      *tmuxtest.Server
	sup     *supervisor.Supervisor
	spans   *tracetest.SpanRecorder
	metrics *sdkmetric.ManualReader
	c       *client.Client
}

// newTracedEnv builds a tracedEnv over a server with one session "main".
// The supervisor takes its tracer from the global provider, so the test's
// provider is installed globally until the test ends: tests using this
// must not run in parallel.
func newTracedEnv(t *testing.T) *tracedEnv {
	t.Helper()
	e := &tracedEnv{t: t, tm: tmuxtest.New(t), spans: tracetest.NewSpanRecorder(), metrics: sdkmetric.NewManualReader()}
	e.tm.Start("main")
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(e.spans))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	tel := &Telemetry{tracing: true, metering: true, tracers: tp,
		meters:     sdkmetric.NewMeterProvider(sdkmetric.WithReader(e.metrics)),
		propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}

	e.sup = supervisor.New(supervisor.Config{DefaultSocket: tmux.Socket{Path: e.tm.Socket}, TmuxConfig: "/dev/null"})
	t.Cleanup(func() { e.sup.Close() })
	stop, err := observeSupervisor(tel.meters, e.sup)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	opts, err := tel.ServerOptions("stdio")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.New(tools.Deps{Sup: e.sup, Tier: tools.Destructive, SocketDir: t.TempDir()},
		tools.Options{Settings: mcpserver.Settings{Version: "test", ServerOptions: opts, ValidateOutput: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	e.c, err = client.NewInProcessClient(ts.MCP)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.c.Close() })
	ctx := context.Background()
	if err := e.c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	if _, err := e.c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return e
}

// call calls a tool with meta as the request's _meta (nil for none).
func (e *tracedEnv) call(name string, args map[string]any, meta map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	if meta != nil {
		req.Params.Meta = &mcp.Meta{AdditionalFields: meta}
	}
	return e.c.CallTool(ctx, req)
}

// ok calls a tool and requires a successful result.
func (e *tracedEnv) ok(name string, args map[string]any) *mcp.CallToolResult {
	e.t.Helper()
	res, err := e.call(name, args, nil)
	if err != nil || res.IsError {
		e.t.Fatalf("%s: got %v %v, want success", name, err, res)
	}
	return res
}

// span returns the one ended span named name.
func (e *tracedEnv) span(name string) sdktrace.ReadOnlySpan {
	e.t.Helper()
	var found []sdktrace.ReadOnlySpan
	var names []string
	for _, s := range e.spans.Ended() {
		names = append(names, s.Name())
		if s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		e.t.Fatalf("got %d spans named %q, want 1; spans: %q", len(found), name, names)
	}
	return found[0]
}

// children returns the ended spans whose parent is p.
func (e *tracedEnv) children(p sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range e.spans.Ended() {
		if s.Parent().SpanID() == p.SpanContext().SpanID() && s.Parent().TraceID() == p.SpanContext().TraceID() {
			out = append(out, s)
		}
	}
	return out
}

// collect returns the metrics recorded so far.
func (e *tracedEnv) collect() metricdata.ResourceMetrics {
	e.t.Helper()
	var rm metricdata.ResourceMetrics
	if err := e.metrics.Collect(context.Background(), &rm); err != nil {
		e.t.Fatal(err)
	}
	return rm
}

func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, a := range s.Attributes() {
		m[string(a.Key)] = a.Value.String()
	}
	return m
}

func TestToolCallSpanParentsTmuxSpans(t *testing.T) {
	e := newTracedEnv(t)
	e.ok("list_sessions", nil)

	req := e.span("tools/call list_sessions")
	if got, want := req.SpanKind(), trace.SpanKindServer; got != want {
		t.Errorf("request span kind = %v, want %v", got, want)
	}
	a := attrs(req)
	for k, want := range map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "list_sessions", "gen_ai.operation.name": "execute_tool",
		"network.transport": "pipe", "mcp.protocol.version": e.c.ProtocolVersion(),
	} {
		if a[k] != want {
			t.Errorf("request span %s = %q, want %q", k, a[k], want)
		}
	}
	for _, k := range []string{"jsonrpc.request.id", "mcp.session.id"} {
		if a[k] == "" {
			t.Errorf("request span has no %s; attributes %v", k, a)
		}
	}
	if _, failed := a["error.type"]; failed || req.Status().Code != 0 {
		t.Errorf("request span error.type %q, status %v; want neither", a["error.type"], req.Status())
	}
	var tmuxSpans []string
	for _, s := range e.children(req) {
		if strings.HasPrefix(s.Name(), "tool.") {
			t.Errorf("span %q repeats the request span", s.Name())
		}
		if strings.HasPrefix(s.Name(), "tmux ") {
			tmuxSpans = append(tmuxSpans, s.Name())
			if s.SpanKind() != trace.SpanKindClient {
				t.Errorf("%s kind = %v, want client", s.Name(), s.SpanKind())
			}
		}
	}
	if len(tmuxSpans) == 0 || tmuxSpans[0] != "tmux list-sessions" {
		t.Errorf("tmux spans under the request span = %q, want tmux list-sessions", tmuxSpans)
	}
}

func TestTraceparentInMetaJoinsTheCallersTrace(t *testing.T) {
	e := newTracedEnv(t)
	const traceID, parentID = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	res, err := e.call("list_sessions", nil, map[string]any{"traceparent": "00-" + traceID + "-" + parentID + "-01"})
	if err != nil || res.IsError {
		t.Fatalf("list_sessions: %v %v", err, res)
	}
	req := e.span("tools/call list_sessions")
	if got := req.SpanContext().TraceID().String(); got != traceID {
		t.Errorf("request span trace = %s, want the caller's %s", got, traceID)
	}
	if got := req.Parent(); got.SpanID().String() != parentID || !got.IsRemote() {
		t.Errorf("request span parent = %s (remote %v), want the caller's span %s", got.SpanID(), got.IsRemote(), parentID)
	}
	kids := e.children(req)
	if len(kids) == 0 {
		t.Fatal("no spans under the request span")
	}
	for _, s := range kids {
		if got := s.SpanContext().TraceID().String(); got != traceID {
			t.Errorf("%s trace = %s, want %s", s.Name(), got, traceID)
		}
	}
}

func TestFailedRequestSpans(t *testing.T) {
	e := newTracedEnv(t)
	tests := []struct {
		tool, span      string
		wantErrorResult bool
		want            map[string]string
	}{
		{tool: "kill_session", span: "tools/call kill_session", wantErrorResult: true,
			want: map[string]string{"error.type": "tool_error", "tmux.error_class": "session_not_found"}},
		{tool: "no_such_tool", span: "tools/call",
			want: map[string]string{"error.type": "-32602", "rpc.response.status_code": "-32602"}},
	}
	for _, tt := range tests {
		res, err := e.call(tt.tool, map[string]any{"session_name": "nope"}, nil)
		if tt.wantErrorResult && (err != nil || !res.IsError) {
			t.Fatalf("%s: got %v %v, want an error result", tt.tool, err, res)
		}
		if !tt.wantErrorResult && err == nil {
			t.Fatalf("%s: got %v, want a JSON-RPC error", tt.tool, res)
		}
		s := e.span(tt.span)
		a := attrs(s)
		for k, want := range tt.want {
			if a[k] != want {
				t.Errorf("%s: span %s = %q, want %q", tt.tool, k, a[k], want)
			}
		}
		if got := s.Status(); got.Code.String() != "Error" || got.Description != tt.want["error.type"] {
			t.Errorf("%s: span status = %v, want Error %q", tt.tool, got, tt.want["error.type"])
		}
	}
	// The same classes reach mcp.server.operation.duration; nothing is left
	// in flight.
	seen := map[string]bool{}
	for _, sm := range e.collect().ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				if m.Name != "mcp.server.operation.duration" {
					continue
				}
				for _, p := range d.DataPoints {
					if v, ok := p.Attributes.Value("error.type"); ok {
						seen[v.String()] = true
					}
				}
			case metricdata.Sum[int64]:
				if m.Name != "mcp.server.active_requests" {
					continue
				}
				for _, p := range d.DataPoints {
					if p.Value != 0 {
						t.Errorf("mcp.server.active_requests %v = %d after all calls returned, want 0", p.Attributes.ToSlice(), p.Value)
					}
				}
			}
		}
	}
	for _, want := range []string{"tool_error", "-32602"} {
		if !seen[want] {
			t.Errorf("mcp.server.operation.duration has no point with error.type %s; got %v", want, seen)
		}
	}
}

func TestPromptAndResourceSpans(t *testing.T) {
	e := newTracedEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var prompt mcp.GetPromptRequest
	prompt.Params.Name = "diagnose_failing_pane"
	prompt.Params.Arguments = map[string]string{"pane_id": "%0"}
	if _, err := e.c.GetPrompt(ctx, prompt); err != nil {
		t.Fatal(err)
	}
	prompt.Params.Name = "no_such_prompt"
	if _, err := e.c.GetPrompt(ctx, prompt); err == nil {
		t.Fatal("unknown prompt: got no error")
	}
	var read mcp.ReadResourceRequest
	read.Params.URI = "tmux://sessions"
	if _, err := e.c.ReadResource(ctx, read); err != nil {
		t.Fatal(err)
	}

	if got := attrs(e.span("prompts/get diagnose_failing_pane"))["gen_ai.prompt.name"]; got != "diagnose_failing_pane" {
		t.Errorf("prompt span gen_ai.prompt.name = %q, want diagnose_failing_pane", got)
	}
	// A name no prompt has names neither the span nor its metric.
	unknown := attrs(e.span("prompts/get"))
	if _, named := unknown["gen_ai.prompt.name"]; named || unknown["error.type"] == "" {
		t.Errorf("unknown prompt's span attributes %v, want error.type and no gen_ai.prompt.name", unknown)
	}
	res := e.span("resources/read")
	if got := attrs(res)["mcp.resource.uri"]; got != "tmux://sessions" {
		t.Errorf("resource span mcp.resource.uri = %q, want tmux://sessions", got)
	}
	var kids []string
	for _, s := range e.children(res) {
		kids = append(kids, s.Name())
	}
	if !slices.Contains(kids, "tmux list-sessions") {
		t.Errorf("spans under resources/read = %q, want tmux list-sessions", kids)
	}
}

// TestSpansCarryNoSecrets sends an environment value, a command line, pane
// text, a name that tmux echoes in its error and a prompt's command
// through the MCP server, and checks that no span or metric holds any of
// them.
func TestSpansCarryNoSecrets(t *testing.T) {
	e := newTracedEnv(t)
	secret := func() string {
		b := make([]byte, 8)
		rand.Read(b)
		return "s3cret" + hex.EncodeToString(b)
	}
	envValue, printed, echoed, toolName, command := secret(), secret(), secret(), secret(), secret()

	e.ok("create_session", map[string]any{"session_name": "sec", "environment": map[string]any{"TOKEN": envValue}})
	var pane struct {
		ID string `json:"pane_id"`
	}
	res := e.ok("split_window", map[string]any{"session_name": "sec", "shell": "printf '%s\\n' " + printed + "; exec cat"})
	if err := json.Unmarshal(res.RawStructuredContent, &pane); err != nil || pane.ID == "" {
		t.Fatalf("split_window result %s: %v", res.RawStructuredContent, err)
	}
	if got := e.tm.MustTmux("show-environment", "-t", "sec", "TOKEN"); got != "TOKEN="+envValue {
		t.Fatalf("session environment = %q, want the value sent", got)
	}
	srv, err := e.sup.Default(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the pane's text through the supervisor", func() bool {
		c, err := srv.Capture(context.Background(), supervisor.CaptureRequest{Pane: tmux.PaneID(pane.ID)})
		return err == nil && strings.Contains(string(c.Content), printed)
	})
	res, err = e.call("kill_session", map[string]any{"session_name": echoed}, nil)
	if err != nil || !strings.Contains(res.Content[0].(mcp.TextContent).Text, echoed) {
		t.Fatalf("kill_session %s: got %v %v, want an error result naming it", echoed, err, res)
	}
	if _, err := e.call(toolName, nil, nil); err == nil || !strings.Contains(err.Error(), toolName) {
		t.Fatalf("unknown tool %s: got %v, want a JSON-RPC error naming it", toolName, err)
	}
	var prompt mcp.GetPromptRequest
	prompt.Params.Name = "run_and_wait"
	prompt.Params.Arguments = map[string]string{"pane_id": pane.ID, "command": "echo " + command}
	if got, err := e.c.GetPrompt(context.Background(), prompt); err != nil || !strings.Contains(fmt.Sprint(got.Messages), command) {
		t.Fatalf("run_and_wait prompt: got %v %v, want it to show the command", got, err)
	}

	ended := e.spans.Ended()
	var sawNewSession, sawSplit bool
	for _, s := range ended {
		sawNewSession = sawNewSession || s.Name() == "tmux new-session"
		sawSplit = sawSplit || s.Name() == "tmux split-window"
	}
	if !sawNewSession || !sawSplit {
		t.Fatalf("spans lack tmux new-session (%v) or split-window (%v): the check below would prove nothing", sawNewSession, sawSplit)
	}
	b, err := json.Marshal(tracetest.SpanStubsFromReadOnlySpans(ended))
	if err != nil {
		t.Fatal(err)
	}
	m, err := json.Marshal(e.collect())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{envValue, printed, echoed, toolName, command} {
		if strings.Contains(string(b), s) {
			t.Errorf("a span holds %s", s)
		}
		if strings.Contains(string(m), s) {
			t.Errorf("a metric holds %s", s)
		}
	}
}

func TestMetaPropagatorRoundTrip(t *testing.T) {
	p := metaPropagator{propagation.TraceContext{}}
	if got := p.InjectMeta(context.Background(), nil); got != nil {
		t.Errorf("InjectMeta without a span = %v, want nil", got)
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	meta := p.InjectMeta(ctx, &mcp.Meta{ProgressToken: "tok"})
	if meta.ProgressToken != "tok" || meta.AdditionalFields["traceparent"] == nil {
		t.Fatalf("InjectMeta = %+v, want the progress token kept and a traceparent added", meta)
	}
	got := trace.SpanContextFromContext(p.ExtractMeta(context.Background(), meta))
	if got.TraceID() != sc.TraceID() || got.SpanID() != sc.SpanID() || !got.IsRemote() {
		t.Errorf("ExtractMeta = %v, want remote %v", got, sc)
	}
	if got := p.ExtractMeta(context.Background(), nil); trace.SpanContextFromContext(got).IsValid() {
		t.Errorf("ExtractMeta(nil) carries a span context")
	}
}

// TestHeaderContextYieldsToMeta: over HTTP, trace context in the request's
// _meta wins over the HTTP headers (the MCP conventions' parent).
func TestHeaderContextYieldsToMeta(t *testing.T) {
	p := headerPropagator{propagation.TraceContext{}}
	h := http.Header{}
	h.Set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	fromMeta := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, Remote: true})
	tests := []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"headers only", context.Background(), "0af7651916cd43dd8448eb211c80319c"},
		{"meta and headers", trace.ContextWithRemoteSpanContext(context.Background(), fromMeta), fromMeta.TraceID().String()},
	}
	for _, tt := range tests {
		if got := trace.SpanContextFromContext(p.Extract(tt.ctx, h)).TraceID().String(); got != tt.want {
			t.Errorf("%s: trace = %s, want %s", tt.name, got, tt.want)
		}
	}
}
