package tools

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestPanicIsAnErrorResult checks that a panicking handler yields an error
// result and the server keeps serving.
func TestPanicIsAnErrorResult(t *testing.T) {
	e := newEnv(t, Readonly)
	e.srv.MCP.AddTool(mcp.NewTool("boom"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("kaboom")
	})
	e.fails("boom", nil, "internal error in boom: panic: kaboom", "the server keeps serving")
	e.ok("list_sessions", nil, nil)
}
