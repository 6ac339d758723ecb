//go:build conformance

package conformance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The fixtures of the tasks extension's scenarios (tasks-*, SEP-2663).
// A tool whose Execution.TaskSupport is optional or required may become
// a task when the client declared io.modelcontextprotocol/tasks; a
// required one is refused (-32021) to a client that did not. Each does
// what the scenarios' fixture list says:
//
//   - greet: no task support; "Hello, {name}!".
//   - slow_compute: optional; sleeps `seconds` (a task at once when more
//     than 0) and ends with ctx's error as soon as the call is cancelled.
//   - failing_job: required; a tool error after about a second.
//   - protocol_error_job: optional; a JSON-RPC error (internal error)
//     after about a second, which a task reports as failed.
//   - confirm_delete: optional; asks the user to confirm (through the
//     task when it is one, which is then input_required).
//   - multi_input: optional; asks two questions at once, which may be
//     answered one at a time.
//   - test_tool_with_task: required; asks the user's name with an
//     input_required result (no task yet), then becomes a task whose
//     result greets them (tasks-mrtr-composition).

// jobTime is how long failing_job, protocol_error_job and the second
// round of test_tool_with_task work before they end.
const jobTime = time.Second

// maxSeconds bounds slow_compute's sleep.
const maxSeconds = 3600

var (
	taskOptional = mcp.WithTaskSupport(mcp.TaskSupportOptional)
	taskRequired = mcp.WithTaskSupport(mcp.TaskSupportRequired)
)

func (f *fixtures) taskTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool("greet", mcp.WithDescription("Greets: Hello, {name}! (never a task)"),
			mcp.WithString("name", mcp.Required(), mcp.Description("who to greet"))),
			Handler: greet},
		{Tool: mcp.NewTool("slow_compute", mcp.WithDescription("Sleeps for seconds, then answers; may run as a task"),
			mcp.WithNumber("seconds", mcp.Description(fmt.Sprintf("how long to sleep, 0 to %d", maxSeconds)), mcp.DefaultNumber(1)),
			mcp.WithString("label", mcp.Description("echoed in the result")), taskOptional),
			Handler: slowCompute},
		{Tool: mcp.NewTool("failing_job", mcp.WithDescription("Fails with a tool error after about a second; runs only as a task"),
			taskRequired),
			Handler: failingJob},
		{Tool: mcp.NewTool("protocol_error_job",
			mcp.WithDescription("Fails with a JSON-RPC error after about a second; may run as a task"), taskOptional),
			Handler: protocolErrorJob},
		{Tool: mcp.NewTool("confirm_delete", mcp.WithDescription("Asks the user to confirm deleting filename (deletes nothing); may run as a task"),
			mcp.WithString("filename", mcp.Required(), mcp.Description("the file named in the question")), taskOptional),
			Handler: f.confirmDelete},
		{Tool: mcp.NewTool("multi_input", mcp.WithDescription("Asks two questions at once; may run as a task"), taskOptional),
			Handler: f.multiInput},
		{Tool: mcp.NewTool("test_tool_with_task",
			mcp.WithDescription("Asks the user's name, then runs as a task that greets them"), taskRequired),
			Handler: f.toolWithTask},
	}
}

func greet(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := req.RequireString("name")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("Hello, %s!", name)), nil
}

func slowCompute(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	secs := req.GetFloat("seconds", 1)
	if secs < 0 || secs > maxSeconds {
		return mcp.NewToolResultError(fmt.Sprintf("seconds must be 0 to %d, not %g", maxSeconds, secs)), nil
	}
	label := req.GetString("label", "")
	if secs > 0 {
		detach(ctx)
		if err := pause(ctx, time.Duration(secs*float64(time.Second))); err != nil {
			return nil, err
		}
	}
	return mcp.NewToolResultText(fmt.Sprintf("computed %q after %gs", label, secs)), nil
}

func failingJob(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	detach(ctx)
	if err := pause(ctx, jobTime); err != nil {
		return nil, err
	}
	return mcp.NewToolResultError("failing_job failed, as it always does"), nil
}

func protocolErrorJob(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	detach(ctx)
	if err := pause(ctx, jobTime); err != nil {
		return nil, err
	}
	return nil, errors.New("protocol_error_job: an internal failure, as it always has")
}

// input asks requests through the task when the call can be one, else
// with an input_required result (a nil answers and a non-nil ask).
func (f *fixtures) input(ctx context.Context, kind string, req mcp.CallToolRequest, requests mcp.InputRequests) (mcp.InputResponses, *ask, error) {
	answers, ok, err := askTask(ctx, requests)
	if ok {
		return answers, nil, err
	}
	return f.gather(kind, req.Params.MultiRoundTripParams, requests)
}

func (f *fixtures) confirmDelete(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := req.RequireString("filename")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	answers, a, err := f.input(ctx, "confirm-delete", req,
		mcp.InputRequests{"confirm": elicit(fmt.Sprintf("Delete %s?", name), "confirm", "boolean")})
	switch {
	case err != nil:
		return nil, err
	case a != nil:
		return a.toolResult(), nil
	}
	if yes, _ := field(answers["confirm"], "confirm"); yes == true {
		return mcp.NewToolResultText(fmt.Sprintf("%s deleted (a fixture: no file was touched)", name)), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("%s kept: the user did not confirm", name)), nil
}

func (f *fixtures) multiInput(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	answers, a, err := f.input(ctx, "multi-input", req, mcp.InputRequests{
		"first":  elicit("First question: a name?", "name", "string"),
		"second": elicit("Second question: another name?", "name", "string"),
	})
	switch {
	case err != nil:
		return nil, err
	case a != nil:
		return a.toolResult(), nil
	}
	first, _ := field(answers["first"], "name")
	second, _ := field(answers["second"], "name")
	return mcp.NewToolResultText(fmt.Sprintf("first: %v; second: %v", first, second)), nil
}

// toolWithTask asks the name in the call itself (input_required, no
// task), and once it has it becomes a task that answers after jobTime.
func (f *fixtures) toolWithTask(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	answers, a, err := f.gather("tool-with-task", req.Params.MultiRoundTripParams,
		mcp.InputRequests{"user_name": elicit("What is your name?", "name", "string")})
	switch {
	case err != nil:
		return nil, err
	case a != nil:
		return a.toolResult(), nil
	}
	name, ok := field(answers["user_name"], "name")
	if !ok {
		return mcp.NewToolResultError("The user did not give a name."), nil
	}
	detach(ctx)
	if err := pause(ctx, jobTime); err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(fmt.Sprintf("Hello, %v! (asked before the task began)", name)), nil
}
