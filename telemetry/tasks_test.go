package telemetry

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/tracing"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestTaskSpanEndsWithTheTask: the span of a tools/call that became a
// task ends once both the request was answered and the task ended,
// whichever comes first, with the task's outcome; a request about the
// task is a span under it, or under the caller's trace with a link.
func TestTaskSpanEndsWithTheTask(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tel := &Telemetry{tracing: true, tracers: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)),
		meters: sdkmetric.NewMeterProvider(), propagator: propagation.TraceContext{}}
	tr, err := tel.TaskTracer("stdio")
	if err != nil {
		t.Fatal(err)
	}
	tt := tr.(taskTracer)
	toolErr := &mcp.CallToolResult{IsError: true, Result: mcp.Result{Meta: mcp.NewMetaFromMap(map[string]any{"error_type": "timeout"})}}
	tests := []struct {
		name      string
		taskFirst bool
		outcome   TaskEnd
		errType   string
		class     string
		wantCode  codes.Code
	}{
		{"completed, answered first", false, TaskEnd{Status: "completed", Result: &mcp.CallToolResult{}}, "", "", codes.Unset},
		{"a tool error, ended first", true, TaskEnd{Status: "completed", Result: toolErr}, "tool_error", "timeout", codes.Error},
		{"failed", false, TaskEnd{Status: "failed", Code: -32603}, "-32603", "", codes.Error},
		{"cancelled, ended first", true, TaskEnd{Status: "cancelled"}, "cancelled", "", codes.Error},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, span := tt.t.Start(context.Background(), "mcp.tools/call", tracing.SpanKindServer)
			end := tt.Detach(ctx, "j1")
			first, second := span.End, func() { end(tc.outcome) }
			if tc.taskFirst {
				first, second = second, first
			}
			n := len(rec.Ended())
			first()
			if len(rec.Ended()) != n {
				t.Fatal("the span ended before both the answer and the task's end")
			}
			second()
			if len(rec.Ended()) != n+1 {
				t.Fatal("the span did not end once both had come")
			}
			s := rec.Ended()[n]
			a := attrs(s)
			if a["error.type"] != tc.errType || a["tmux.error_class"] != tc.class || s.Status().Code != tc.wantCode ||
				a["tmux.task.status"] != string(tc.outcome.Status) || a["tmux.task.id"] != "j1" {
				t.Errorf("span: status %v, attributes %v; want error.type %q, class %q, task status %s", s.Status(), a, tc.errType, tc.class, tc.outcome.Status)
			}
			// A request about the task: under its span, or linked to it
			// from the caller's trace.
			taskCtx := trace.ContextWithSpanContext(context.Background(), s.SpanContext())
			tt.Request(context.Background(), TaskRequest{Method: "tasks/get", ID: []byte("7"), TaskID: "j1", Task: taskCtx})(0)
			get := rec.Ended()[len(rec.Ended())-1]
			if get.Name() != "tasks/get" || get.Parent().SpanID() != s.SpanContext().SpanID() {
				t.Errorf("tasks/get span %q, parent %v; want it under the task's span", get.Name(), get.Parent().SpanID())
			}
			caller := map[string]any{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
			tt.Request(context.Background(), TaskRequest{Method: "tasks/get", ID: []byte("8"), TaskID: "j1", Task: taskCtx,
				Meta: &mcp.Meta{AdditionalFields: caller}})(-32602)
			get = rec.Ended()[len(rec.Ended())-1]
			if get.Parent().TraceID().String() != "0af7651916cd43dd8448eb211c80319c" || len(get.Links()) != 1 ||
				get.Links()[0].SpanContext.SpanID() != s.SpanContext().SpanID() || attrs(get)["error.type"] != "-32602" {
				t.Errorf("tasks/get with the caller's traceparent: parent %v, links %v, attributes %v; want the caller's trace, a link to the task, error.type -32602",
					get.Parent(), get.Links(), attrs(get))
			}
		})
	}
}
