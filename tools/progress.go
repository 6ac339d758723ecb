package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// progressKey carries a call's progress token in its context.
type progressKey struct{}

// withProgress lets h report progress: the request's progress token, if
// the client sent one, travels in the context to reportProgress.
func withProgress(h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if m := req.Params.Meta; m != nil && m.ProgressToken != nil {
			ctx = context.WithValue(ctx, progressKey{}, m.ProgressToken)
		}
		return h(ctx, req)
	}
}

// reportProgress sends a progress notification when the caller asked for
// them. Delivery is best effort: a full notification queue drops it.
func reportProgress(ctx context.Context, progress, total float64, msg string) {
	tok := ctx.Value(progressKey{})
	srv := server.ServerFromContext(ctx)
	if tok == nil || srv == nil {
		return
	}
	srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{ //nolint:errcheck // best effort
		"progressToken": tok, "progress": progress, "total": total, "message": msg})
}
