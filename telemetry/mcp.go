package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	// The MCP attributes and metrics were last generated into Go in
	// semconv v1.41.0; they are attribute names, so they mix with the
	// SDK's v1.43.0 resource without a schema conflict.
	semconv41 "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
)

// errorClassKey is tmux-mcp's class of a failed call: a tool error
// result's error_type, the same name the supervisor gives a tmux command's
// error class.
const errorClassKey = attribute.Key("tmux.error_class")

// errTypeTool is error.type for a tool result with isError set.
const errTypeTool = "tool_error"

// mcpTracer implements mcp-go's tracing hook with OpenTelemetry and the
// semantic conventions for MCP servers: one server span per request named
// "{mcp.method.name} {target}", mcp.server.operation.duration, and the
// requests in flight. Span attributes hold names, IDs and error classes,
// never arguments, results or error messages (they may carry keystrokes,
// pane text or environment values).
type mcpTracer struct {
	tracer    trace.Tracer
	transport string // network.transport: "pipe" for stdio, "tcp" for HTTP
	duration  mcpconv.ServerOperationDuration
	active    metric.Int64UpDownCounter
}

func newMCPTracer(tp trace.TracerProvider, mp metric.MeterProvider, transport string) (*mcpTracer, error) {
	m := mp.Meter(instrumentationName)
	dur, err := mcpconv.NewServerOperationDuration(m,
		metric.WithExplicitBucketBoundaries(0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300))
	if err != nil {
		return nil, err
	}
	active, err := m.Int64UpDownCounter("mcp.server.active_requests", metric.WithUnit("{request}"),
		metric.WithDescription("MCP requests being handled"))
	if err != nil {
		return nil, err
	}
	return &mcpTracer{tracer: tp.Tracer(instrumentationName), transport: transport, duration: dur, active: active}, nil
}

// Start starts the span of one request. mcp-go's second span per tool
// call (tool.NAME, internal) would repeat the request span, so it is not
// made: tmux command spans hang directly off the request span.
func (t *mcpTracer) Start(ctx context.Context, name string, kind tracing.SpanKind, attrs ...tracing.Attribute) (context.Context, tracing.Span) {
	if kind != tracing.SpanKindServer {
		return tracing.NoopTracer().Start(ctx, name, kind, attrs...)
	}
	ctx, s := t.start(ctx, strings.TrimPrefix(name, "mcp."))
	s.SetAttributes(attrs...)
	return tracing.ContextWithSpan(ctx, s), s
}

// start starts the server span of one request of method.
func (t *mcpTracer) start(ctx context.Context, method string, opts ...trace.SpanStartOption) (context.Context, *mcpSpan) {
	s := &mcpSpan{t: t, method: method, start: time.Now()}
	base := []attribute.KeyValue{semconv41.McpMethodNameKey.String(method), semconv41.NetworkTransportKey.String(t.transport)}
	ctx, s.span = t.tracer.Start(ctx, method, append([]trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(base...)}, opts...)...)
	t.active.Add(ctx, 1, metric.WithAttributes(base...))
	return ctx, s
}

// mcpSpan is one request's span. mcp-go and the hooks below fill it in;
// End records it.
type mcpSpan struct {
	t      *mcpTracer
	span   trace.Span
	method string
	start  time.Time

	mu              sync.Mutex
	target          string // tool or prompt name
	targetKey       attribute.Key
	protocolVersion string
	errType         string // error.type; "" while it succeeded
	failed          bool
	ended           bool
	// held: the request became a task (tasks.go), and the span ends with
	// the task, once both the request was answered (answered) and the
	// task ended.
	held, answered bool
}

// SetAttributes maps mcp-go's attributes onto the semantic conventions.
func (s *mcpSpan) SetAttributes(attrs ...tracing.Attribute) {
	for _, a := range attrs {
		switch a.Key {
		case "mcp.method": // set at Start
		case "mcp.tool.name":
			s.setTarget(semconv41.GenAIToolNameKey, a.Value)
			s.span.SetAttributes(semconv41.GenAIOperationNameExecuteTool)
		case "mcp.session.id":
			s.span.SetAttributes(semconv41.McpSessionID(a.Value))
		case "mcp.protocol.version":
			s.setProtocolVersion(a.Value)
		}
	}
}

// setTarget names the tool or prompt the request is about; it becomes part
// of the span name.
func (s *mcpSpan) setTarget(key attribute.Key, name string) {
	s.mu.Lock()
	s.target, s.targetKey = name, key
	s.mu.Unlock()
	s.span.SetAttributes(key.String(name))
	s.span.SetName(s.method + " " + name)
}

func (s *mcpSpan) setProtocolVersion(v string) {
	if v == "" {
		return
	}
	s.mu.Lock()
	s.protocolVersion = v
	s.mu.Unlock()
	s.span.SetAttributes(semconv41.McpProtocolVersion(v))
}

// fail records the request's error.type; the first one set wins.
func (s *mcpSpan) fail(errType string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed = true
	if s.errType == "" {
		s.errType = errType
	}
}

// RecordError marks the request failed. The error's message is not
// recorded: it may quote what the caller sent.
func (s *mcpSpan) RecordError(error) { s.fail("") }

// SetStatus marks the request failed on an error status; the description
// (a JSON-RPC error message) is not recorded, error.type carries the class.
func (s *mcpSpan) SetStatus(code tracing.StatusCode, _ string) {
	if code == tracing.StatusError {
		s.fail("")
	}
}

// End ends the span and records the request's duration; the span of a
// request that became a task ends when the task does too.
func (s *mcpSpan) End() {
	s.mu.Lock()
	if s.held {
		s.answered = true
		s.mu.Unlock()
		return
	}
	s.end()
}

// end ends the span; called with s.mu held, which it releases.
func (s *mcpSpan) end() {
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	failed, errType, target, targetKey, version := s.failed, s.errType, s.target, s.targetKey, s.protocolVersion
	s.mu.Unlock()
	if failed && errType == "" {
		errType = string(mcpconv.ErrorTypeOther)
	}
	attrs := []attribute.KeyValue{semconv41.NetworkTransportKey.String(s.t.transport)}
	if target != "" {
		attrs = append(attrs, targetKey.String(target))
		if targetKey == semconv41.GenAIToolNameKey {
			attrs = append(attrs, semconv41.GenAIOperationNameExecuteTool)
		}
	}
	if version != "" {
		attrs = append(attrs, semconv41.McpProtocolVersion(version))
	}
	if failed {
		attrs = append(attrs, semconv41.ErrorTypeKey.String(errType))
		s.span.SetAttributes(semconv41.ErrorTypeKey.String(errType))
		s.span.SetStatus(codes.Error, errType)
	}
	s.span.End()
	ctx := trace.ContextWithSpan(context.Background(), s.span)
	s.t.duration.Record(ctx, time.Since(s.start).Seconds(), mcpconv.MethodNameAttr(s.method), attrs...)
	s.t.active.Add(ctx, -1, metric.WithAttributes(semconv41.McpMethodNameKey.String(s.method),
		semconv41.NetworkTransportKey.String(s.t.transport)))
}

// requestSpan returns the request span that mcp-go put in ctx, or nil.
func requestSpan(ctx context.Context) *mcpSpan {
	s, _ := tracing.SpanFromContext(ctx).(*mcpSpan)
	return s
}

// jsonrpcError is what mcp-go's request errors implement.
type jsonrpcError interface {
	ToJSONRPCError() mcp.JSONRPCError
}

// traceHooks fills in what mcp-go's tracer hook does not know: the
// request ID, the protocol version, resource URIs, prompt names, and why
// a request failed.
func traceHooks(h *server.Hooks) {
	h.AddBeforeAny(func(ctx context.Context, id any, _ mcp.MCPMethod, _ any) {
		s := requestSpan(ctx)
		if s == nil {
			return
		}
		if id != nil {
			s.span.SetAttributes(semconv41.JSONRPCRequestIDKey.String(requestID(id)))
		}
		s.setProtocolVersion(server.RequestProtocolVersion(ctx))
	})
	h.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		if s := requestSpan(ctx); s != nil && res != nil {
			s.setProtocolVersion(res.ProtocolVersion)
		}
	})
	h.AddBeforeReadResource(func(ctx context.Context, _ any, req *mcp.ReadResourceRequest) {
		if s := requestSpan(ctx); s != nil {
			s.span.SetAttributes(semconv41.McpResourceURI(req.Params.URI))
		}
	})
	// After, not before: only a prompt that exists names the span (and the
	// metric), not whatever name a client sends.
	h.AddAfterGetPrompt(func(ctx context.Context, _ any, req *mcp.GetPromptRequest, _ *mcp.GetPromptResult) {
		if s := requestSpan(ctx); s != nil {
			s.setTarget(semconv41.GenAIPromptNameKey, req.Params.Name)
		}
	})
	h.AddAfterCallTool(func(ctx context.Context, _ any, _ *mcp.CallToolRequest, result any) {
		s := requestSpan(ctx)
		res, ok := result.(*mcp.CallToolResult)
		if s == nil || !ok {
			return
		}
		s.toolResult(res)
	})
	h.AddOnError(func(ctx context.Context, _ any, _ mcp.MCPMethod, _ any, err error) {
		s := requestSpan(ctx)
		if s == nil {
			return
		}
		var je jsonrpcError
		if !errors.As(err, &je) {
			s.fail("")
			return
		}
		code := strconv.Itoa(je.ToJSONRPCError().Error.Code)
		s.span.SetAttributes(semconv41.RPCResponseStatusCodeKey.String(code))
		s.fail(code)
	})
}

// requestID renders a JSON-RPC id as decoded from JSON (a number or a
// string).
func requestID(id any) string {
	switch v := id.(type) {
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		return v
	}
	return fmt.Sprint(id)
}

// metaPropagator carries trace context in a request's params._meta
// (traceparent, tracestate, baggage; SEP-414), so a client's spans and
// tmux-mcp's join one trace on every transport.
type metaPropagator struct{ p propagation.TextMapPropagator }

func (m metaPropagator) ExtractMeta(ctx context.Context, meta *mcp.Meta) context.Context {
	if meta == nil || len(meta.AdditionalFields) == 0 {
		return ctx
	}
	return m.p.Extract(ctx, metaCarrier{meta})
}

func (m metaPropagator) InjectMeta(ctx context.Context, meta *mcp.Meta) *mcp.Meta {
	out := meta
	if out == nil {
		out = &mcp.Meta{}
	}
	if out.AdditionalFields == nil {
		out.AdditionalFields = map[string]any{}
	}
	m.p.Inject(ctx, metaCarrier{out})
	if meta == nil && len(out.AdditionalFields) == 0 {
		return nil
	}
	return out
}

// metaCarrier is a propagation.TextMapCarrier over _meta.
type metaCarrier struct{ m *mcp.Meta }

func (c metaCarrier) Get(key string) string {
	v, _ := c.m.AdditionalFields[key].(string)
	return v
}

func (c metaCarrier) Set(key, value string) { c.m.AdditionalFields[key] = value }

func (c metaCarrier) Keys() []string {
	keys := make([]string, 0, len(c.m.AdditionalFields))
	for k := range c.m.AdditionalFields {
		keys = append(keys, k)
	}
	return keys
}

// headerPropagator extracts trace context from HTTP headers unless the
// request's _meta carried one: per the MCP conventions the _meta context
// is the parent.
type headerPropagator struct{ p propagation.TextMapPropagator }

func (h headerPropagator) Extract(ctx context.Context, headers http.Header) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	return h.p.Extract(ctx, propagation.HeaderCarrier(headers))
}

func (h headerPropagator) Inject(ctx context.Context, headers http.Header) {
	h.p.Inject(ctx, propagation.HeaderCarrier(headers))
}

// ServerOptions are the mcp-go options that trace requests: the tracer
// hook, both propagators, and the hooks above (added to whatever hooks the
// server already has). transport is "stdio" or "http". With telemetry off
// there are none.
func (t *Telemetry) ServerOptions(transport string) ([]server.ServerOption, error) {
	if !t.tracing && !t.metering {
		return nil, nil
	}
	tr, err := newMCPTracer(t.tracers, t.meters, netTransport(transport))
	if err != nil {
		return nil, err
	}
	return []server.ServerOption{
		server.WithTracer(tr),
		server.WithMetaPropagator(metaPropagator{t.propagator}),
		server.WithPropagator(headerPropagator{t.propagator}),
		withMoreHooks(traceHooks),
	}, nil
}

// netTransport is network.transport of transport ("stdio" or "http").
func netTransport(transport string) string {
	if transport == "http" {
		return "tcp"
	}
	return "pipe"
}

// withMoreHooks adds hooks to the server's Hooks (server.WithHooks would
// replace them).
func withMoreHooks(add func(*server.Hooks)) server.ServerOption {
	return func(s *server.MCPServer) {
		h := s.GetHooks()
		if h == nil {
			h = &server.Hooks{}
			server.WithHooks(h)(s)
		}
		add(h)
	}
}
