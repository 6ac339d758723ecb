package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Scope parameters shared by the option and hook tools.
var (
	pScope  = mcp.WithString("scope", mcp.Enum("server", "session", "window", "pane"))
	pTarget = mcp.WithString("target")
	pGlobal = mcp.WithBoolean("global_")
)

// optionNameRe matches an option name as tmux accepts it: a name or a user
// option (@name), with an optional array index.
var optionNameRe = regexp.MustCompile(`^@?[A-Za-z0-9_-]+(\[[0-9]+\])?$`)

// optionScope returns the table of options (or hooks) a call names. It
// always names a target or the global table: without one tmux picks the
// "current" session, which for tmux-mcp's control connection is its
// hidden session. scope "" leaves the table to tmux (it knows every
// option's scope from its name) at the first session's active pane.
func optionScope(ctx context.Context, srv *supervisor.Server, p tooldef.Args) (supervisor.OptionScope, error) {
	var none supervisor.OptionScope
	scope, target, global := p.Str("scope"), p.Str("target"), p.Bool("global_")
	if target != "" && scope == "" {
		return none, &toolError{msg: "scope is required when target is specified", class: "argument"}
	}
	switch {
	case scope == "server":
		// -s with -g: a session option named here goes to the global
		// session options, not to the hidden session.
		return supervisor.OptionScope{Server: true, Global: true}, nil
	case global && (scope == "window" || scope == "pane"):
		// Panes inherit from the global window options; tmux has no
		// global pane level.
		return supervisor.OptionScope{Global: true, Window: true}, nil
	case global:
		return supervisor.OptionScope{Global: true}, nil
	}
	q := tooldef.Args{"socket_name": p.Str("socket_name")}
	switch scope {
	case "session":
		if target != "" {
			if sessionIDRe.MatchString(target) {
				q["session_id"] = target
			} else {
				q["session_name"] = target
			}
		}
		s, err := findSession(ctx, srv, q)
		if err != nil {
			return none, err
		}
		return supervisor.OptionScope{Target: string(s.ID)}, nil
	case "window":
		if target != "" {
			if !windowIDRe.MatchString(target) {
				return none, tooldef.BadArg("target", "want a window ID like @1 for scope window; call list_windows")
			}
			q["window_id"] = target
		}
	case "pane":
		if target != "" {
			if !paneIDRe.MatchString(target) {
				return none, tooldef.BadArg("target", "want a pane ID like %%1 for scope pane; call list_panes")
			}
			q["pane_id"] = target
		}
	}
	x, err := findPane(ctx, srv, q)
	if err != nil {
		return none, err
	}
	switch scope {
	case "window":
		return supervisor.OptionScope{Window: true, Target: string(x.WindowID)}, nil
	case "pane":
		return supervisor.OptionScope{Pane: true, Target: string(x.ID)}, nil
	}
	return supervisor.OptionScope{Target: string(x.ID)}, nil
}

func checkOptionName(name string) error {
	if !optionNameRe.MatchString(name) {
		return tooldef.BadArg("option", "want an option name such as history-limit or @my-option")
	}
	return nil
}

// optionValueSchema is what optionValue returns, or null (unset).
var optionValueSchema = tooldef.AnyOf("string", "integer", "boolean", "array", "null")

// optionValue converts a value as libtmux does: digits become a number,
// on and off a boolean, several lines (an array option) a list.
func optionValue(out string) any {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 1 {
		return lines
	}
	v := lines[0]
	if n, err := strconv.Atoi(v); err == nil && indexRe.MatchString(v) {
		return n
	}
	switch v {
	case "on":
		return true
	case "off":
		return false
	}
	return v
}

// ShowOption reads one option's value in force.
func ShowOption(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("show_option", "Show an option's value in force (inherited values included).", tooldef.Read,
		tooldef.Object(map[string]any{"option": tString, "value": optionValueSchema}),
		mcp.WithString("option", mcp.Required()), pScope, pTarget, pGlobal, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		name := p.Str("option")
		if err := checkOptionName(name); err != nil {
			return nil, err
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		scope, err := optionScope(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		out, err := srv.ShowOption(ctx, scope, name)
		var value any
		switch {
		case err == nil && len(out) > 0:
			value = optionValue(out)
		case err == nil:
			// Not set at this level and nothing to inherit: null.
		case strings.HasPrefix(name, "@") && errors.Is(err, tmux.ErrCommand) && strings.Contains(err.Error(), "invalid option"):
			// tmux calls an unset user option invalid: it has no value.
		default:
			return nil, err
		}
		return structured(struct {
			Option string `json:"option"`
			Value  any    `json:"value"`
		}{name, value})
	})
}

// maxHistoryLimit is the largest history-limit set_option sets below the
// destructive tier: scrollback costs the server 0.2-0.6 kB a line, per
// pane, and tmux allows up to INT_MAX lines.
const maxHistoryLimit = 100000

// guardedOptions are options whose values can end the server or make it
// grow without bound. tmux accepts any unique prefix of an option name, so
// a name is guarded when it is a prefix of one of these.
var guardedOptions = []struct {
	name string
	// risk returns why value is refused, or "".
	risk func(value string) string
}{
	{"exit-empty", flagRisk("the tmux server would exit when its last session closes")},
	{"exit-unattached", flagRisk("the tmux server would exit at once: no client is attached to it")},
	{"destroy-unattached", flagRisk("sessions would be destroyed when their last client detaches, and then the server exits")},
	{"history-limit", func(v string) string {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > maxHistoryLimit {
			return fmt.Sprintf("scrollback beyond %d lines a pane can exhaust the server's memory", maxHistoryLimit)
		}
		return ""
	}},
}

// flagRisk refuses every value but off: tmux turns a flag on for on, yes,
// 1, and toggles it for an empty value.
func flagRisk(why string) func(string) string {
	return func(v string) string {
		if !guard.TurnsOn(v) {
			return ""
		}
		return why
	}
}

// optionRisk returns why setting name to value is refused below the
// destructive tier, or "".
func optionRisk(name, value string) string {
	base, _, _ := strings.Cut(name, "[")
	if strings.HasPrefix(base, "@") {
		return ""
	}
	for _, g := range guardedOptions {
		if strings.HasPrefix(g.name, base) {
			if why := g.risk(value); why != "" {
				return fmt.Sprintf("Refusing to set %s to %q: %s.", g.name, value, why)
			}
		}
	}
	return ""
}

// commandOptions are the options whose value is a command tmux runs or
// decides what runs: every hook of tmux 3.2a to next-3.8 (hooks are options;
// any after-<command> name is one too), command aliases, the shell and
// command of new panes, and the commands of copy-pipe, lock and the
// editor. tmux accepts any unique prefix of a name, so a name is one of
// these when it is a prefix of one.
var commandOptions = []string{
	"alert-activity", "alert-bell", "alert-silence",
	"client-active", "client-attached", "client-dark-theme", "client-detached", "client-focus-in",
	"client-focus-out", "client-light-theme", "client-resized", "client-session-changed",
	"command-error",
	"pane-died", "pane-exited", "pane-focus-in", "pane-focus-out", "pane-mode-changed",
	"pane-set-clipboard", "pane-title-changed",
	"session-closed", "session-created", "session-renamed", "session-window-changed",
	"window-layout-changed", "window-linked", "window-pane-changed", "window-renamed",
	"window-resized", "window-unlinked",
	// The hooks next-3.8 adds (its hooks are events, CHANGES 3.8).
	"client-created", "client-closed", "marked-pane-changed", "session-added-to-group",
	"session-removed-from-group", "pane-activity", "pane-bell", "pane-command-finished",
	"pane-command-started", "pane-created", "pane-mode-entered", "pane-mode-exited", "pane-moved",
	"pane-prompt-closed", "pane-prompt-opened", "pane-resized", "pane-shell-prompt",
	"window-created", "window-closed", "window-unzoomed", "window-zoomed",
	"command-alias", "default-command", "default-shell", "default-client-command",
	"copy-command", "editor", "lock-command",
}

// commandRisk returns why setting name to value can run a command, or "":
// name is a hook or another command option (commandOptions, after-*), or
// value holds a format job "#(" or an E: or T: modifier, which expands a
// value as a format, jobs included, wherever tmux shows the option.
func commandRisk(name, value string) string {
	base, _, _ := strings.Cut(name, "[")
	if !strings.HasPrefix(base, "@") {
		if strings.HasPrefix(base, "after-") {
			return fmt.Sprintf("%s is a hook: it runs tmux commands (and through run-shell, anything)", name)
		}
		for _, o := range commandOptions {
			if strings.HasPrefix(o, base) {
				return fmt.Sprintf("%s runs commands or decides what runs", o)
			}
		}
	}
	switch {
	case strings.Contains(value, "#("):
		return "the value holds a format job #(...), which runs a shell command wherever tmux shows it"
	case expandingModifier.MatchString(value):
		return "the value holds an E: or T: modifier, which expands values as formats, jobs included"
	}
	return ""
}

// SetOption sets an option.
func SetOption(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("set_option", "Set an option (hooks, command options, #() and server-ending values need the destructive tier).",
		tooldef.Mutate, tooldef.Record(tString, []string{"option", "value", "status"}, nil),
		mcp.WithString("option", mcp.Required()), mcp.WithString("value", mcp.Required()),
		pScope, pTarget, pGlobal, pAllowAgent, pAllowAttended, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		name, value := p.Str("option"), p.Str("value")
		if err := checkOptionName(name); err != nil {
			return nil, err
		}
		risk := optionRisk(name, value)
		if why := commandRisk(name, value); why != "" {
			risk = fmt.Sprintf("Refusing to set %s: %s.", name, why)
		}
		if risk != "" && d.Tier < Destructive {
			return nil, &toolError{msg: risk, class: "refused",
				hint: "Start tmux-mcp with --safety destructive (TMUX_MCP_SAFETY=destructive) to allow it."}
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		if risk != "" {
			// What it runs could kill this server, which kill_server
			// refuses: not even the destructive tier sets it here.
			if holds, err := d.guard().HoldsCaller(ctx, srv); err != nil {
				return nil, err
			} else if holds {
				return nil, refused(risk + " " + guard.RefuseOwnServer)
			}
		}
		scope, err := optionScope(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		if guard.SyncOption(name) {
			if err := d.guard().GuardSyncOption(ctx, srv, scope, value); err != nil {
				return nil, err
			}
			if err := d.guard().GuardSyncDriven(ctx, srv, scope, value, p.Bool("allow_agent"), p.Bool("allow_attended")); err != nil {
				return nil, err
			}
		}
		if err := srv.SetOption(ctx, scope, name, value); err != nil {
			return nil, err
		}
		return structured(map[string]string{"option": name, "value": value, "status": "set"})
	})
}
