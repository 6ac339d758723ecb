package tools

import (
	"context"
	"path/filepath"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// Self-protection messages, as libtmux-mcp words them.
const (
	refuseServer  = "Refusing to kill the tmux server while this MCP server is running inside it. Use a manual tmux command if intended."
	refuseSession = "Refusing to kill the session containing this MCP server's pane. Use a manual tmux command if intended."
	refuseWindow  = "Refusing to kill the window containing this MCP server's pane. Use a manual tmux command if intended."
	// refuseOwnServer: an option that runs commands or ends the server is
	// not set on the server this MCP process runs in, at any tier.
	refuseOwnServer = "This MCP server runs inside this tmux server. Use a manual tmux command if intended."
)

// callerOnServer is libtmux-mcp's conservative test: true when the MCP
// process may be running on sock's server (same socket by real path, same
// socket name, or a pane but no socket to compare).
func (d Deps) callerOnServer(sock tmux.Socket) bool {
	c := d.Caller
	if !c.InTmux() {
		return false
	}
	if c.SocketPath == "" {
		return true
	}
	if samePath(c.SocketPath, sock.ResolvedPath()) {
		return true
	}
	return sock.Name != "" && filepath.Base(c.SocketPath) == sock.Name
}

// refuseSelfInput is the refusal of keystrokes into the caller's pane.
const refuseSelfInput = "Refusing to type into the pane running this MCP server: an agent could answer its own approval prompts."

// checkTypingSelf refuses keystrokes and pastes into the pane this MCP
// process runs in, unless the destructive tier and AllowSelfInput both
// allow it.
func (d Deps) checkTypingSelf(srv *supervisor.Server, pane tmux.PaneID) error {
	if d.Caller.Pane != pane || !d.callerOnServer(srv.Socket()) || d.Tier >= Destructive && d.AllowSelfInput {
		return nil
	}
	return &toolError{msg: refuseSelfInput, class: "refused",
		hint: "Target another pane. To allow it, start tmux-mcp with --safety destructive and --allow-self-input."}
}

// callerPane returns the pane the MCP process runs in, when it may be on
// srv's server and a pane with its ID exists there.
func (d Deps) callerPane(ctx context.Context, srv *supervisor.Server) (tmux.Pane, bool, error) {
	if d.Caller.Pane == "" || !d.callerOnServer(srv.Socket()) {
		return tmux.Pane{}, false, nil
	}
	panes, err := srv.ListPanes(ctx)
	if err != nil {
		return tmux.Pane{}, false, err
	}
	for _, p := range panes {
		if p.ID == d.Caller.Pane {
			return p, true, nil
		}
	}
	return tmux.Pane{}, false, nil
}
