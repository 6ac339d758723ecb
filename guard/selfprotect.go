package guard

import (
	"context"

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
	RefuseServer  = "Refusing to kill the tmux server while this MCP server is running inside it. Use a manual tmux command if intended."
	RefuseSession = "Refusing to kill the session containing this MCP server's pane. Use a manual tmux command if intended."
	RefuseWindow  = "Refusing to kill the window containing this MCP server's pane. Use a manual tmux command if intended."
	// RefuseOwnServer: an option that runs commands or ends the server is
	// not set on the server this MCP process runs in, at any tier.
	RefuseOwnServer = "This MCP server runs inside this tmux server. Use a manual tmux command if intended."
	// RefuseSelfInput is the refusal of keystrokes into the caller's pane.
	RefuseSelfInput = "Refusing to type into the pane running this MCP server: an agent could answer its own approval prompts."
)

// SelfAct is an action that reaches the pane tmux-mcp runs in.
type SelfAct struct {
	Refusal string
	// Typing: --allow-self-input allows it as well as --allow-own-pane.
	Typing bool
	// Ask is the question put to the user. It names objects by ID only:
	// names and titles come from tmux and could be worded to mislead.
	Ask string
}

// AllowSelf lets an action on tmux-mcp's own pane, or on what
// holds it, go ahead: at the destructive tier with --allow-own-pane
// (or, for typing, --allow-self-input), or when the user says yes.
func (g Guard) AllowSelf(ctx context.Context, a SelfAct) error {
	if g.Destructive && (g.AllowOwnPane || a.Typing && g.AllowSelfInput) {
		return nil
	}
	return g.confirm(ctx, a)
}

// CallerOnServer is libtmux-mcp's conservative test of the environment:
// true when TMUX says the MCP process may be running on sock's server
// (same socket by real path, same socket name, or a pane but no socket to
// compare).
func (g Guard) CallerOnServer(sock tmux.Socket) bool { return g.Caller.On(sock) }

// HoldsCaller reports whether srv's server may hold tmux-mcp: by its
// environment, or because one of its panes does.
func (g Guard) HoldsCaller(ctx context.Context, srv *supervisor.Server) (bool, error) {
	if g.CallerOnServer(srv.Socket()) || HopCallersOf(ctx).OnServer(srv.Socket()) {
		return true, nil
	}
	own, err := g.OwnPanesOn(ctx, srv, false)
	return len(own.Panes) > 0, err
}

// CheckTypingSelf refuses keystrokes and pastes into the pane this MCP
// process runs in, or into a pane synchronized with it (selfsync.go),
// unless AllowSelf lets them through.
func (g Guard) CheckTypingSelf(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID) error {
	own, err := g.OwnPanesOn(ctx, srv, false)
	if err != nil || len(own.Panes) == 0 {
		return err
	}
	if own.Has(pane) {
		return g.AllowSelf(ctx, SelfAct{Refusal: RefuseSelfInput, Typing: true,
			Ask: g.toolName(ctx) + " would type into pane " + string(pane) + " on tmux server " + srv.Socket().String() +
				": the pane this agent runs in, where it could answer its own approval prompts. Allow it?"})
	}
	for _, o := range own.Panes {
		synced, err := syncedWithOwn(ctx, srv, o, pane)
		if err != nil {
			return err
		}
		if !synced {
			continue
		}
		return g.AllowSelf(ctx, SelfAct{Refusal: RefuseSyncInput, Typing: true,
			Ask: g.toolName(ctx) + " would type into pane " + string(pane) + " on tmux server " + srv.Socket().String() +
				", whose window has synchronize-panes on: the keys would also reach pane " + string(o) +
				", the pane this agent runs in, where it could answer its own approval prompts. Allow it?"})
	}
	return nil
}

// GuardPane lets verb ("kill", "respawn", "clear", ...) reach pane on srv's server
// when it is not tmux-mcp's own pane, or when AllowSelf allows it.
func (g Guard) GuardPane(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, refusal, verb string) error {
	own, err := g.OwnPanesOn(ctx, srv, false)
	if err != nil || !own.Has(pane) {
		return err
	}
	return g.AllowSelf(ctx, SelfAct{Refusal: refusal,
		Ask: g.toolName(ctx) + " would " + verb + " pane " + string(pane) + " on tmux server " + srv.Socket().String() +
			": the pane this agent runs in. Allow it?"})
}
