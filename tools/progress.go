package tools

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
)

// progress reports the progress of one long tool call
// (mcpserver.Progress): any handler that may run for more than a second
// starts it, and stops it when its wait ends.
type progress struct{ p *mcpserver.Progress }

// startProgress starts reporting for the call req handled under ctx
// (mcpserver.StartProgress).
func startProgress(ctx context.Context, req mcp.CallToolRequest, limit time.Duration, what string) *progress {
	return &progress{mcpserver.StartProgress(ctx, req, limit, what)}
}

// stop ends the reports and waits until none can follow.
func (p *progress) stop() { p.p.Stop() }
