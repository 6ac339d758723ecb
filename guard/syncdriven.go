package guard

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Synchronized panes and the panes someone else drives. Typing into a
// pane checks every pane the keys reach (CheckTyping, ReachedPanes); and
// turning synchronize-panes on where it reaches another agent CLI's pane
// or a person's needs the same explicit argument typing into that pane
// needs (allow_agent, allow_attended), and is refused, whatever the
// arguments, over an agent that asks a permission question: from then on
// every key a person or a program types into a sibling would reach it.

// syncScopePanes returns the panes that set-option in scope (tools' optionScope's)
// turning synchronize-panes on would synchronize, as
// far as the window goes: every pane of the server for -g, of the window
// for a window or pane target (a pane's own option joins it to its
// window's synchronized panes), of the session's current window for a
// session target (tmux sets a window option given a session there); and
// where, in words.
func syncScopePanes(ctx context.Context, srv *supervisor.Server, scope supervisor.OptionScope) ([]tmux.Pane, string, error) {
	target := scope.Target
	panes, err := srv.ListPanes(ctx)
	if err != nil {
		return nil, "", err
	}
	var window tmux.WindowID
	where := ""
	switch {
	case scope.Global || target == "":
		where = "every window of tmux server " + srv.Socket().String()
	case strings.HasPrefix(target, "@"):
		window, where = tmux.WindowID(target), "window "+target
	case strings.HasPrefix(target, "$"):
		for _, p := range panes {
			if p.SessionID == tmux.SessionID(target) && p.WindowActive {
				window = p.WindowID
			}
		}
		where = "the current window of session " + target
	case strings.HasPrefix(target, "%"):
		for _, p := range panes {
			if p.ID == tmux.PaneID(target) {
				window = p.WindowID
			}
		}
		where = "pane " + target + " in window " + string(window)
	}
	var out []tmux.Pane
	for _, p := range panes {
		if p.SessionName == tmux.HiddenSession || (window != "" && p.WindowID != window) {
			continue
		}
		out = append(out, p)
	}
	return out, where, nil
}

// GuardSyncDriven refuses set-option in scope turning synchronize-panes
// on over a pane another agent CLI runs in (or shows behind a terminal
// client) without allowAgent, over one whose agent asks a permission
// question at all, and over a pane a person works in without
// allowAttended. tmux-mcp's own pane is GuardSyncOption's.
func (g Guard) GuardSyncDriven(ctx context.Context, srv *supervisor.Server, scope supervisor.OptionScope, value string, allowAgent, allowAttended bool) error {
	if !TurnsOn(value) {
		return nil // off: nothing reaches anyone
	}
	panes, where, err := syncScopePanes(ctx, srv, scope)
	if err != nil {
		return err
	}
	own, _, err := g.OwnPaneOn(ctx, srv, false)
	if err != nil {
		return err
	}
	var clients []supervisor.AttachedClient
	if !allowAttended {
		if clients, err = srv.ListClients(ctx); err != nil {
			return err
		}
	}
	for _, q := range panes {
		if q.ID == own {
			continue
		}
		via := fmt.Sprintf("%s would turn synchronize-panes on for %s: keys typed into another pane of its window would reach pane %s too, and ",
			g.toolName(ctx), where, q.ID)
		if err := g.checkAgentPane(ctx, srv, q, allowAgent, via); err != nil {
			return withSetOptionHint(err)
		}
		if err := attendedBy(clients, q.ID, via); err != nil {
			return withSetOptionHint(err)
		}
	}
	return nil
}

// withSetOptionHint names set_option's own arguments in a refusal of
// checkAgentPane or attendedBy.
func withSetOptionHint(err error) error {
	var te *Error
	if !errors.As(err, &te) {
		return err
	}
	out := *te
	switch te.Class {
	case "agent_pane":
		out.Msg = strings.Replace(te.Msg, "(send_keys, paste_text, submit_prompt take it)", "(set_option takes it)", 1)
		out.Hint = "set_option allow_agent: true turns it on all the same"
	case "asking_permission":
		out.Hint = "answer_permission answers it first; then set_option again"
	case "attended_pane":
		out.Hint = "ask the person first; set_option allow_attended: true turns it on all the same"
	}
	return &out
}
