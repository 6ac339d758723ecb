package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// handlerFunc is a tool handler that receives checked arguments. Errors it
// returns go through asToolError: actionable ones become tool error
// results, the rest stay Go errors.
type handlerFunc func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error)

// handle adapts fn to mcp-go: it checks arguments against t's input schema
// and maps errors.
func handle(t mcp.Tool, fn handlerFunc) server.ToolHandlerFunc {
	return handleRequest(t, func(ctx context.Context, _ mcp.CallToolRequest, p tooldef.Args) (*mcp.CallToolResult, error) {
		return fn(ctx, p)
	})
}

// handleRequest is handle for a handler that also needs the request: a
// long call reports progress to the request's progress token.
func handleRequest(t mcp.Tool, fn func(ctx context.Context, req mcp.CallToolRequest, p tooldef.Args) (*mcp.CallToolResult, error)) server.ToolHandlerFunc {
	props, required := tooldef.InputSchema(t)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, resolved := withResolutions(context.WithValue(ctx, requestKey{}, req))
		p, err := tooldef.Check(props, required, req.Params.Arguments)
		if err == nil {
			var res *mcp.CallToolResult
			res, err = fn(ctx, req, p)
			if err == nil {
				resolved.annotate(res)
				return res, nil
			}
		}
		var ask *guard.AskUser
		if errors.As(err, &ask) {
			return ask.Result(), nil
		}
		if te := asToolError(err); te != nil {
			res := errorResult(te)
			resolved.annotate(res)
			return res, nil
		}
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
}
