package guard

import (
	"context"
	"errors"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Synchronized panes. tmux copies a key typed into a pane whose
// synchronize-panes is on to every other pane of its window whose option
// is on too (window_pane_copy_key, 3.2a to 3.7c; the option is a window
// option that a pane may override). So typing into a sibling of
// tmux-mcp's own pane types into the own pane as well when both are
// synchronized: a "y" and Enter meant for the sibling answers the agent's
// own prompt. A synchronized window that holds the own pane therefore
// counts as the own pane for the tools that type (CheckTypingSelf), and
// turning the option on where it reaches the own pane is guarded the same
// way (GuardSyncOption). tmux also skips a pane that is in a mode, has
// its input off or is hidden by a zoom; those change without notice, so
// they are not counted on.

const (
	// RefuseSyncInput refuses keys to a pane synchronized with the
	// caller's own.
	RefuseSyncInput = "Refusing to type into a pane whose window has synchronize-panes on and holds the pane running this MCP server: the keys would reach that pane too, where an agent could answer its own approval prompts."
	// RefuseSyncOption refuses turning synchronize-panes on where it
	// reaches the caller's own pane.
	RefuseSyncOption = "Refusing to turn synchronize-panes on where it reaches the pane running this MCP server: keys typed into another pane of its window would reach that pane too."
)

// syncedWithOwn reports whether keys typed into pane also reach own, the
// pane tmux-mcp runs in, through synchronize-panes: pane is in own's
// window and both have the option on. One list-panes of own's window.
func syncedWithOwn(ctx context.Context, srv *supervisor.Server, own, pane tmux.PaneID) (bool, error) {
	synced, err := srv.SynchronizedPanes(ctx, own)
	if errors.Is(err, tmux.ErrNotFound) {
		return false, nil // the own pane is gone: nothing to reach
	}
	if err != nil {
		return false, err
	}
	return synced[own] && synced[pane], nil
}

// SyncOption reports whether an option name is synchronize-panes, as tmux
// reads it (any unique prefix, an array index ignored).
func SyncOption(name string) bool {
	base, _, _ := strings.Cut(name, "[")
	return len(base) >= 2 && strings.HasPrefix("synchronize-panes", base)
}

// GuardSyncOption refuses set-option in scope (tools' optionScope's) turning synchronize-panes on where it reaches tmux-mcp's own
// pane on srv's server: globally, for its window, for a pane of its
// window, or for a session holding it (tmux sets a window option given a
// session on the session's current window), unless AllowSelf lets it
// through as it would typing into the own pane.
func (g Guard) GuardSyncOption(ctx context.Context, srv *supervisor.Server, scope supervisor.OptionScope, value string) error {
	if !TurnsOn(value) {
		return nil // off: nothing reaches anyone
	}
	own, err := g.OwnPanesOn(ctx, srv, true)
	if err != nil || len(own.Panes) == 0 {
		return err
	}
	// The caller's panes by window and by session (one pane may be in
	// several sessions through a linked window).
	byWindow := map[tmux.WindowID]tmux.PaneID{}
	bySession := map[tmux.SessionID]tmux.PaneID{}
	for _, r := range own.Rows {
		byWindow[r.WindowID] = r.ID
		bySession[r.SessionID] = r.ID
	}
	where := ""
	target := scope.Target
	switch {
	case scope.Global || target == "":
		where = "every window of tmux server " + srv.Socket().String() + ", pane " + string(own.Panes[0]) + "'s among them"
	case strings.HasPrefix(target, "@"):
		if pane, ok := byWindow[tmux.WindowID(target)]; ok {
			where = "window " + target + ", which holds pane " + string(pane)
		}
	case strings.HasPrefix(target, "$"):
		if pane, ok := bySession[tmux.SessionID(target)]; ok {
			where = "the current window of session " + target + ", which holds pane " + string(pane)
		}
	case strings.HasPrefix(target, "%"):
		p, err := srv.Pane(ctx, tmux.PaneID(target))
		if err != nil {
			return err
		}
		if pane, ok := byWindow[p.WindowID]; ok {
			where = "pane " + target + " in window " + string(p.WindowID) + ", which holds pane " + string(pane)
		}
	}
	if where == "" {
		return nil
	}
	return g.AllowSelf(ctx, SelfAct{Refusal: RefuseSyncOption, Typing: true,
		Ask: g.toolName(ctx) + " would turn synchronize-panes on for " + where +
			", the pane this agent runs in: keys typed into another pane of that window would reach it too, where it could answer its own approval prompts. Allow it?"})
}

// TurnsOn reports whether set-option turns a flag on with value: every
// value but off, no and 0 (tmux turns a flag on for on, yes and 1, and
// toggles it for an empty value).
func TurnsOn(value string) bool {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "off", "no", "0":
		return false
	}
	return true
}
