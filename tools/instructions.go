package tools

import "github.com/tmux-mcp/tmux-mcp/mcpserver"

// instructions are the server instructions for d, the default server
// being socket (mcpserver.Instructions).
func instructions(d Deps, socket string) string {
	return mcpserver.Instructions(socket, d.Tier.String(), d.Tier == Readonly, string(d.Caller.Pane))
}
