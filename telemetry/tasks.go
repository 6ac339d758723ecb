package telemetry

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/attribute"
	semconv41 "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/tmux-mcp/tmux-mcp/taskext"
)

// The spans of MCP tasks (package taskext). A tools/call that becomes a
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

// taskTracer implements taskext.Tracer.
type taskTracer struct {
	t      *mcpTracer
	meta   metaPropagator
	header headerPropagator
}

// TaskTracer is the tracer of the tasks layer (taskext.Options.Tracer)
// for transport ("stdio" or "http"); nil with telemetry off.
func (t *Telemetry) TaskTracer(transport string) (taskext.Tracer, error) {
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
func (tt taskTracer) Detach(ctx context.Context, id string) func(taskext.Outcome) {
	s := requestSpan(ctx)
	if s == nil {
		return func(taskext.Outcome) {}
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
func (s *mcpSpan) taskEnded(o taskext.Outcome) {
	s.span.SetAttributes(taskStatusKey.String(string(o.Status)))
	switch o.Status {
	case taskext.Completed:
		s.toolResult(o.Result)
	case taskext.Failed:
		code := strconv.Itoa(o.Code)
		s.span.SetAttributes(semconv41.RPCResponseStatusCodeKey.String(code))
		s.fail(code)
	case taskext.Cancelled:
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
func (tt taskTracer) Request(ctx context.Context, r taskext.Request) func(code int) {
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
