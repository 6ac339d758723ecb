package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Self-protection messages for panes, as libtmux-mcp words them.
const (
	refusePane    = "Refusing to kill the pane running this MCP server. Use a manual tmux command if intended."
	refuseRespawn = "Refusing to respawn the pane running this MCP server. Use a manual tmux command if intended."
	// refuseClear and refuseCopyMode are tmux-mcp's own: clearing the
	// pane erases what the person watching the agent sees, and copy mode
	// freezes their view of its output (or, left, ends their scrolling).
	refuseClear    = "Refusing to clear the pane running this MCP server: the person watching it would lose what it shows. Use a manual tmux command if intended."
	refuseCopyMode = "Refusing to change copy mode of the pane running this MCP server: it holds the view of the person watching it. Use a manual tmux command if intended."
)

// RespawnPane restarts the process of a pane, keeping its ID.
func RespawnPane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("respawn_pane", "Restart a pane's process; same pane_id.",
		tooldef.Destructive, paneSchema,
		mcp.WithString("pane_id", mcp.Required()),
		mcp.WithBoolean("kill"),
		mcp.WithString("shell"),
		mcp.WithString("start_directory"),
		pEnvironment, pSocket, pNoHistory)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		env, err := envVars(p)
		if err != nil {
			return nil, err
		}
		srv, x, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := d.guard().GuardPane(ctx, srv, x.ID, refuseRespawn, "respawn"); err != nil {
			return nil, err
		}
		_, set := p["kill"]
		o := supervisor.RespawnOptions{Kill: !set || p.Bool("kill"),
			Spawn: supervisor.Spawn{StartDir: p.Str("start_directory"), Env: env, Command: p.Str("shell")}}
		if err := srv.RespawnPane(ctx, x.ID, o); err != nil {
			return nil, err
		}
		return d.paneResult(ctx, srv, x.ID)
	})
}

// KillPane kills one pane, named by ID.
func KillPane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("kill_pane", "Kill a pane.", tooldef.Destructive, messageSchema,
		mcp.WithString("pane_id", mcp.Required()), pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, x, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := d.guard().GuardPane(ctx, srv, x.ID, refusePane, "kill"); err != nil {
			return nil, err
		}
		if err := srv.KillPane(ctx, x.ID); err != nil {
			return nil, err
		}
		return message("Pane killed: " + string(x.ID))
	})
}
