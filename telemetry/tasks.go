package telemetry

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/attribute"
	semconv41 "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// The spans of MCP tasks (the tasks layer, package taskext, which sits
// above telemetry: cmd/tmux-mcp adapts its tracer interface to this one). A tools/call that becomes a
// task is answered with its handle at once, but its span, which mcp-go
// ends when the request is answered, is held open until the task ends:
// it covers the work, with its outcome as its status (error.type
// tool_error and tmux.error_class for a tool error, the JSON-RPC code of
// a failure, cancelled), and an event marks when the call became a task.
// The requests the tasks layer answers itself (tasks/get, tasks/update,
// tasks/cancel, and 2025-11-25's tasks/result and tasks/list) get server
// spans of their own, named for their method: under the caller's trace
// when the request carries one (linked to the task's span), else under
// the task's span.

// Attributes of a task's spans: which task, and how it ended. The task
// ID finds it in list_jobs; alone it gives no one the task (taskext:
// owner.go).
const (
	taskIDKey     = attribute.Key("tmux.task.id")
	taskStatusKey = attribute.Key("tmux.task.status")
)

// errTypeCancelled is error.type of a task that was cancelled.
const errTypeCancelled = "cancelled"

// TaskEnd is how a task ended, as its span records it (the tasks
// layer's outcome; cmd/tmux-mcp adapts the one to the other, so that
// telemetry stays below the tasks layer).
type TaskEnd struct {
	// Status is "completed", "failed" or "cancelled".
	Status string
	// Result is what the tool returned to a completed task.
	Result *mcp.CallToolResult
	// Code is a failed task's JSON-RPC error code.
	Code int
}

// TaskRequest is a request the tasks layer answers itself.
type TaskRequest struct {
	Method string
	ID     json.RawMessage
	// Meta is the request's params._meta; Header its HTTP headers (nil on
	// stdio).
	Meta   *mcp.Meta
	Header http.Header
	// TaskID is the task the request names; Task the context of that
	// task's call (its span), nil for none.
	TaskID string
	Task   context.Context
}

// TaskTracer traces MCP tasks and the requests about them.
type TaskTracer interface {
	// Detach holds the span of the tools/call of ctx open until end.
	Detach(ctx context.Context, id string) (end func(TaskEnd))
	// Request starts the span of a request the tasks layer answers.
	Request(ctx context.Context, r TaskRequest) (end func(code int))
}

// taskTracer implements TaskTracer.
type taskTracer struct {
	t      *mcpTracer
	meta   metaPropagator
	header headerPropagator
}

// TaskTracer is the tracer of the tasks layer for transport ("stdio" or
// "http"); nil with telemetry off.
func (t *Telemetry) TaskTracer(transport string) (TaskTracer, error) {
	if !t.tracing && !t.metering {
		return nil, nil
	}
	tr, err := newMCPTracer(t.tracers, t.meters, netTransport(transport))
	if err != nil {
		return nil, err
	}
	return taskTracer{t: tr, meta: metaPropagator{t.propagator}, header: headerPropagator{t.propagator}}, nil
}

// Detach holds the span of the tools/call of ctx open until the task
// ends.
func (tt taskTracer) Detach(ctx context.Context, id string) func(TaskEnd) {
	s := requestSpan(ctx)
	if s == nil {
		return func(TaskEnd) {}
	}
	s.mu.Lock()
	s.held = true
	s.mu.Unlock()
	s.span.SetAttributes(taskIDKey.String(id))
	s.span.AddEvent("task created", trace.WithAttributes(taskIDKey.String(id)))
	return s.taskEnded
}

// taskEnded records the task's outcome and ends the span once the
// request was answered too.
func (s *mcpSpan) taskEnded(o TaskEnd) {
	s.span.SetAttributes(taskStatusKey.String(o.Status))
	switch o.Status {
	case "completed":
		s.toolResult(o.Result)
	case "failed":
		code := strconv.Itoa(o.Code)
		s.span.SetAttributes(semconv41.RPCResponseStatusCodeKey.String(code))
		s.fail(code)
	case "cancelled":
		s.fail(errTypeCancelled)
	}
	s.mu.Lock()
	s.held = false
	if s.answered {
		s.end()
		return
	}
	s.mu.Unlock()
}

// toolResult marks the request failed when res is a tool error, with its
// class.
func (s *mcpSpan) toolResult(res *mcp.CallToolResult) {
	if res == nil || !res.IsError {
		return
	}
	s.fail(errTypeTool)
	if res.Meta != nil {
		if class, _ := res.Meta.AdditionalFields["error_type"].(string); class != "" {
			s.span.SetAttributes(errorClassKey.String(class))
		}
	}
}

// Request starts the span of a request the tasks layer answers.
func (tt taskTracer) Request(ctx context.Context, r TaskRequest) func(code int) {
	ctx = tt.meta.ExtractMeta(ctx, r.Meta)
	if r.Header != nil {
		ctx = tt.header.Extract(ctx, r.Header)
	}
	var opts []trace.SpanStartOption
	if r.Task != nil {
		if task := trace.SpanContextFromContext(r.Task); task.IsValid() {
			if trace.SpanContextFromContext(ctx).IsValid() {
				opts = append(opts, trace.WithLinks(trace.Link{SpanContext: task}))
			} else {
				ctx = trace.ContextWithSpanContext(ctx, task)
			}
		}
	}
	_, s := tt.t.start(ctx, r.Method, opts...)
	var id any
	if json.Unmarshal(r.ID, &id) == nil && id != nil {
		s.span.SetAttributes(semconv41.JSONRPCRequestIDKey.String(requestID(id)))
	}
	if r.Meta != nil {
		s.setProtocolVersion(r.Meta.ProtocolVersion())
	}
	if r.Header != nil {
		s.setProtocolVersion(r.Header.Get(mcp.HeaderProtocolVersion))
	}
	if r.TaskID != "" {
		s.span.SetAttributes(taskIDKey.String(r.TaskID))
	}
	return func(code int) {
		if code != 0 {
			c := strconv.Itoa(code)
			s.span.SetAttributes(semconv41.RPCResponseStatusCodeKey.String(c))
			s.fail(c)
		}
		s.End()
	}
}
