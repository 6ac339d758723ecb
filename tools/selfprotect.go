package tools

import (
	"context"
	"path/filepath"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Self-protection: typing into, respawning, killing or clearing the pane
// tmux-mcp runs in (ownpane.go finds it), entering or leaving copy mode in
// it, or killing its window, session or
// server, is refused unless the user confirms it through MCP elicitation
// (confirm.go) or the destructive tier and --allow-own-pane allow it
// (--allow-self-input allows typing only).

// Self-protection messages, as libtmux-mcp words them.
const (
	refuseServer  = "Refusing to kill the tmux server while this MCP server is running inside it. Use a manual tmux command if intended."
	refuseSession = "Refusing to kill the session containing this MCP server's pane. Use a manual tmux command if intended."
	refuseWindow  = "Refusing to kill the window containing this MCP server's pane. Use a manual tmux command if intended."
	// refuseOwnServer: an option that runs commands or ends the server is
	// not set on the server this MCP process runs in, at any tier.
	refuseOwnServer = "This MCP server runs inside this tmux server. Use a manual tmux command if intended."
	// refuseSelfInput is the refusal of keystrokes into the caller's pane.
	refuseSelfInput = "Refusing to type into the pane running this MCP server: an agent could answer its own approval prompts."
)

// selfAct is an action that reaches the pane tmux-mcp runs in.
type selfAct struct {
	refusal string
	// typing: --allow-self-input allows it as well as --allow-own-pane.
	typing bool
	// ask is the question put to the user. It names objects by ID only:
	// names and titles come from tmux and could be worded to mislead.
	ask string
}

// allowSelf lets an action on tmux-mcp's own pane, or on what
// holds it, go ahead: at the destructive tier with --allow-own-pane
// (or, for typing, --allow-self-input), or when the user says yes.
func (d Deps) allowSelf(ctx context.Context, a selfAct) error {
	if d.Tier >= Destructive && (d.AllowOwnPane || a.typing && d.AllowSelfInput) {
		return nil
	}
	return d.confirm(ctx, a)
}

// callerOnServer is libtmux-mcp's conservative test of the environment:
// true when TMUX says the MCP process may be running on sock's server
// (same socket by real path, same socket name, or a pane but no socket to
// compare).
func (d Deps) callerOnServer(sock tmux.Socket) bool { return d.Caller.on(sock) }

// on is callerOnServer's test for one caller's TMUX and TMUX_PANE.
func (c Caller) on(sock tmux.Socket) bool {
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

// holdsCaller reports whether srv's server may hold tmux-mcp: by its
// environment, or because one of its panes does.
func (d Deps) holdsCaller(ctx context.Context, srv *supervisor.Server) (bool, error) {
	if d.callerOnServer(srv.Socket()) || hopCallersOf(ctx).onServer(srv.Socket()) {
		return true, nil
	}
	own, err := d.ownPanesOn(ctx, srv, false)
	return len(own.panes) > 0, err
}

// checkTypingSelf refuses keystrokes and pastes into the pane this MCP
// process runs in, or into a pane synchronized with it (selfsync.go),
// unless allowSelf lets them through.
func (d Deps) checkTypingSelf(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID) error {
	own, err := d.ownPanesOn(ctx, srv, false)
	if err != nil || len(own.panes) == 0 {
		return err
	}
	if own.has(pane) {
		return d.allowSelf(ctx, selfAct{refusal: refuseSelfInput, typing: true,
			ask: toolName(ctx) + " would type into pane " + string(pane) + " on tmux server " + srv.Socket().String() +
				": the pane this agent runs in, where it could answer its own approval prompts. Allow it?"})
	}
	for _, o := range own.panes {
		synced, err := syncedWithOwn(ctx, srv, o, pane)
		if err != nil {
			return err
		}
		if !synced {
			continue
		}
		return d.allowSelf(ctx, selfAct{refusal: refuseSyncInput, typing: true,
			ask: toolName(ctx) + " would type into pane " + string(pane) + " on tmux server " + srv.Socket().String() +
				", whose window has synchronize-panes on: the keys would also reach pane " + string(o) +
				", the pane this agent runs in, where it could answer its own approval prompts. Allow it?"})
	}
	return nil
}

// guardPane lets verb ("kill", "respawn", "clear", ...) reach pane on srv's server
// when it is not tmux-mcp's own pane, or when allowSelf allows it.
func (d Deps) guardPane(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, refusal, verb string) error {
	own, err := d.ownPanesOn(ctx, srv, false)
	if err != nil || !own.has(pane) {
		return err
	}
	return d.allowSelf(ctx, selfAct{refusal: refusal,
		ask: toolName(ctx) + " would " + verb + " pane " + string(pane) + " on tmux server " + srv.Socket().String() +
			": the pane this agent runs in. Allow it?"})
}
