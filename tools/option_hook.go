package tools

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Hooks are read-only, as in libtmux-mcp: a hook runs tmux commands (and
// through run-shell, anything) on events, long after the call that set it.

// HookEntry is one command of a hook (array hooks have one per index).
type HookEntry struct {
	HookName string `json:"hook_name"`
	Index    *int   `json:"index"`
	Command  string `json:"command"`
}

// hookSchema is one HookEntry; hooksSchema is show_hook's result.
var hookSchema = tooldef.Record(tString, []string{"hook_name", "command"}, map[string]any{"index": tIntNull})

var hooksSchema = tooldef.Object(map[string]any{"entries": map[string]any{"type": "array", "items": hookSchema}})

// hookLineRe parses a show-hooks line: "name[index] command" or
// "name command"; a bare "name" is an unset hook.
var hookLineRe = regexp.MustCompile(`^([A-Za-z0-9_-]+)(?:\[([0-9]+)\])?(?: (.*))?$`)

var hookNameRe = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// showHooks runs show-hooks for the call's scope and parses the entries
// that have a command. Server scope merges -g with -gw: tmux keeps the
// global window and pane hooks in a tree of their own.
func showHooks(ctx context.Context, srv *supervisor.Server, p tooldef.Args, name string) ([]HookEntry, error) {
	var runs []supervisor.OptionScope
	if p.Str("scope") == "" || p.Str("scope") == "server" {
		if p.Str("target") != "" {
			return nil, tooldef.BadArg("target", "not used with scope server")
		}
		runs = []supervisor.OptionScope{{Global: true}, {Global: true, Window: true}}
	} else {
		scope, err := optionScope(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		runs = []supervisor.OptionScope{scope}
	}
	entries := []HookEntry{}
	seen := map[string]bool{}
	for _, scope := range runs {
		out, err := srv.ShowHooks(ctx, scope, name)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			m := hookLineRe.FindStringSubmatch(line)
			if m == nil || m[3] == "" {
				continue
			}
			key := m[1] + "[" + m[2] + "]"
			if seen[key] {
				continue
			}
			seen[key] = true
			e := HookEntry{HookName: m[1], Command: m[3]}
			if m[2] != "" {
				n, _ := strconv.Atoi(m[2])
				e.Index = &n
			}
			entries = append(entries, e)
		}
	}
	return entries, nil
}

// ShowHooks lists the hooks that are set.
func ShowHooks(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("show_hooks", "List the hooks that are set (default: global).", tooldef.Read, pageOf("entries", hookSchema),
		pScope, pTarget, pGlobal, pFilters, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		filters, err := p.Object("filters")
		if err != nil {
			return nil, err
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		entries, err := showHooks(ctx, srv, p, "")
		if err != nil {
			return nil, err
		}
		pg, err := tooldef.Paginate(entries, filters, 0, false)
		if err != nil {
			return nil, err
		}
		return structured(struct {
			Entries []HookEntry `json:"entries"`
			Matched int         `json:"matched"`
			LeftOut int         `json:"left_out"`
		}{pg.Items, pg.Matched, pg.LeftOut})
	})
}

// ShowHook shows one hook; an unset hook has no entries.
func ShowHook(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("show_hook", "Show one hook's commands; none if unset.", tooldef.Read, hooksSchema,
		mcp.WithString("hook_name", mcp.Required()), pScope, pTarget, pGlobal, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		name := p.Str("hook_name")
		if !hookNameRe.MatchString(name) {
			return nil, tooldef.BadArg("hook_name", "want a hook name such as pane-exited or after-new-window")
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		entries, err := showHooks(ctx, srv, p, name)
		if err != nil {
			return nil, err
		}
		return structured(struct {
			Entries []HookEntry `json:"entries"`
		}{entries})
	})
}
