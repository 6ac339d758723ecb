//go:build conformance

package conformance

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Tools that send notifications while they run: log messages
// (tools-call-with-logging, of protocol revisions before 2026-07-28) and
// progress (tools-call-with-progress). The steps are stepGap apart, as the
// scenarios ask, so that a client sees them arrive during the call.

const stepGap = 50 * time.Millisecond

func notifyTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool("test_tool_with_logging", mcp.WithDescription("Tests tool that emits log messages during execution")),
			Handler: toolWithLogging},
		{Tool: mcp.NewTool("test_tool_with_progress", mcp.WithDescription("Tests tool that reports progress notifications")),
			Handler: toolWithProgress},
	}
}

func toolWithLogging(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, stepGap); err != nil {
				return nil, err
			}
		}
		logInfo(ctx, msg)
	}
	return mcp.NewToolResultText("Tool with logging executed successfully"), nil
}

// toolWithProgress reports 0, 50 and 100 of 100 under the request's
// progress token (none without one) and answers with the token.
func toolWithProgress(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var token mcp.ProgressToken
	if req.Params.Meta != nil {
		token = req.Params.Meta.ProgressToken
	}
	for i, p := range []int{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, stepGap); err != nil {
				return nil, err
			}
		}
		if token != nil {
			notify(ctx, string(mcp.MethodNotificationProgress), map[string]any{"progressToken": token,
				"progress": p, "total": 100, "message": fmt.Sprintf("Completed step %d of 100", p)})
		}
	}
	// The last step too, before the result: mcp-go v1.2.1 loses a
	// notification its stream writer has taken when the result is
	// written first (mark3labs/mcp-go#969); a handler cannot wait for the
	// write itself.
	if err := pause(ctx, stepGap); err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(fmt.Sprint(token)), nil
}

// logInfo sends a log message at level info to the client of ctx, which
// mcp-go drops below the level the client asked for (or, from 2026-07-28,
// when the request named no level).
func logInfo(ctx context.Context, msg string) {
	if s := server.ServerFromContext(ctx); s != nil {
		// A client gone or a full queue loses the message; the call goes on.
		_ = s.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelInfo, "conformance", msg))
	}
}

// notify sends a notification to the client of ctx.
func notify(ctx context.Context, method string, params map[string]any) {
	if s := server.ServerFromContext(ctx); s != nil {
		_ = s.SendNotificationToClient(ctx, method, params)
	}
}

// pause waits d, or returns ctx's error as soon as ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
