package taskext

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
)

// Tracing. mcp-go's tracer makes one span per request it handles, ended
// when the request is answered. A call that becomes a task is answered
// with its handle while its work goes on, and the requests the layer
// answers itself (tasks/get, ...) never reach mcp-go: a [Tracer] is told
// of both, so that a task's span covers its work to its end, with its
// outcome, and the task's requests have spans of their own.

// Tracer traces what mcp-go's tracer cannot see (telemetry implements
// it); Options.Tracer nil traces nothing.
type Tracer interface {
	// Detach is told that the tools/call request of ctx became task id:
	// its span must not end when the request is answered, but when end
	// is called with the task's outcome.
	Detach(ctx context.Context, id string) (end func(Outcome))
	// Request starts the span of a request the layer answers itself; end
	// ends it with the JSON-RPC error code of the answer (0: a result).
	Request(ctx context.Context, r Request) (end func(code int))
}

// Outcome is how a task ended.
type Outcome struct {
	Status Status
	// Result is what the tool returned to a completed task (IsError: a
	// tool error).
	Result *mcp.CallToolResult
	// Code is a failed task's JSON-RPC error code.
	Code int
}

// Request is a request the layer answers itself.
type Request struct {
	Method string
	ID     json.RawMessage
	// Meta is the request's params._meta (traceparent, the protocol
	// version); Header its HTTP headers, nil on stdio.
	Meta   *mcp.Meta
	Header http.Header
	// TaskID is the task the request names, when it is the caller's.
	TaskID string
	// Task is the context of that task's call in this process (its span),
	// nil for none.
	Task context.Context
}

// noEnd ends nothing.
func noEnd(int) {}

// traceRequest starts the span of msg, a request the layer answers, of
// the caller o; the task it names counts only if it is o's.
func (m *Manager) traceRequest(ctx context.Context, msg rpcMessage, meta *mcp.Meta, h http.Header, o Owner) func(code int) {
	if m.opts.Tracer == nil || len(msg.ID) == 0 {
		return noEnd
	}
	r := Request{Method: msg.Method, ID: msg.ID, Meta: meta, Header: h}
	var p struct {
		TaskID string `json:"taskId"`
	}
	if json.Unmarshal(msg.Params, &p) == nil && p.TaskID != "" {
		if _, ok := m.lookupFor(o, p.TaskID); ok {
			r.TaskID = p.TaskID
			m.mu.Lock()
			if t := m.tasks[p.TaskID]; t != nil {
				r.Task = t.ctx
			}
			m.mu.Unlock()
		}
	}
	return m.opts.Tracer.Request(ctx, r)
}

// replyCode is the JSON-RPC error code of a reply the layer wrote, 0 for
// a result.
func replyCode(msg []byte) int {
	var r struct {
		Error *RPCError `json:"error"`
	}
	if json.Unmarshal(msg, &r) != nil || r.Error == nil {
		return 0
	}
	return r.Error.Code
}

// outcome is how t ended, for its span; called with m.mu held.
func (t *task) outcome(res *mcp.CallToolResult) Outcome {
	o := Outcome{Status: t.snap.Status}
	switch t.snap.Status {
	case Completed:
		o.Result = res
	case Failed:
		if t.snap.Error != nil {
			o.Code = t.snap.Error.Code
		}
	}
	return o
}
