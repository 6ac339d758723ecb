package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// requestKey carries a call's request in its context.
type requestKey struct{}

// withRequest lets a handler built with handle see its request (for
// startProgress, which needs the progress token): it travels in the
// context.
func withRequest(h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return h(context.WithValue(ctx, requestKey{}, req), req)
	}
}

// requestOf returns the request withRequest put in ctx (the zero request,
// which asks for no progress, if none).
func requestOf(ctx context.Context) mcp.CallToolRequest {
	req, _ := ctx.Value(requestKey{}).(mcp.CallToolRequest)
	return req
}
