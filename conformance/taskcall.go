//go:build conformance

package conformance

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/taskext"
)

// The seam to the tasks layer (package taskext), the one file that names
// it. A call becomes a task when the request declared the tasks extension
// and the tool supports tasks (mcp.Tool.Execution.TaskSupport); elsewhere
// both functions leave the call as it is.

// detach makes the call a task now, so that the fixtures whose work is
// long (slow_compute, failing_job) become tasks whatever the layer's time
// budget.
func detach(ctx context.Context) { taskext.From(ctx).Detach() }

// askTask asks requests through the call's task: the task is
// input_required until tasks/update has answered each, and the answers
// come back by the same keys. ok is false when the call cannot become a
// task; the fixture then asks with an input_required result.
func askTask(ctx context.Context, requests mcp.InputRequests) (answers mcp.InputResponses, ok bool, err error) {
	c := taskext.From(ctx)
	if c == nil {
		return nil, false, nil
	}
	answers, err = c.Input(ctx, requests)
	return answers, true, err
}
