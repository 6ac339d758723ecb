package main

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/taskext"
	"github.com/tmux-mcp/tmux-mcp/telemetry"
)

// taskTracer adapts telemetry's tracer of tasks to the tasks layer's
// interface: telemetry sits below taskext and does not import it.
type taskTracer struct{ t telemetry.TaskTracer }

// newTaskTracer is the tasks layer's tracer, nil when telemetry has none.
func newTaskTracer(t telemetry.TaskTracer) taskext.Tracer {
	if t == nil {
		return nil
	}
	return taskTracer{t}
}

func (a taskTracer) Detach(ctx context.Context, id string) func(taskext.Outcome) {
	end := a.t.Detach(ctx, id)
	return func(o taskext.Outcome) {
		end(telemetry.TaskEnd{Status: string(o.Status), Result: o.Result, Code: o.Code})
	}
}

func (a taskTracer) Request(ctx context.Context, r taskext.Request) func(code int) {
	return a.t.Request(ctx, telemetry.TaskRequest{Method: r.Method, ID: r.ID, Meta: r.Meta, Header: r.Header, TaskID: r.TaskID, Task: r.Task})
}
