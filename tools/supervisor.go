package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// healthSchema is supervisor.Health, by the fields an agent reads first
// (always present); the others are the struct's, and it stays open for
// the fields the supervisor may add. A property per field cost 920 bytes
// of tools/list.
var healthSchema = tooldef.Record(nil, []string{"socket", "state", "transport", "owned", "restarts", "fds", "ptys"}, nil)

// ServerHealth reports the supervisor's health snapshot of a server.
func ServerHealth(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("server_health", "Supervisor health of a tmux server: state, restarts, last death, fds, PTYs (no tmux call).",
		tooldef.Read, healthSchema, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		h, err := d.health(ctx, p)
		if err != nil {
			return nil, err
		}
		return structured(h)
	})
}

// health returns the health of the named or default server. A server that
// cannot be reached still has a health snapshot saying so.
func (d Deps) health(ctx context.Context, p tooldef.Args) (supervisor.Health, error) {
	sock, err := socketArg(p)
	if err != nil {
		return supervisor.Health{}, err
	}
	if sock == (tmux.Socket{}) {
		sock = d.Sup.Config().DefaultSocket
	}
	if srv := d.supervised(sock); srv != nil {
		return srv.Health(), nil
	}
	srv, err := d.Sup.Server(ctx, sock)
	if srv == nil {
		return supervisor.Health{}, err
	}
	return srv.Health(), nil
}
