package tools

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// envScope returns the session a call names, or "" for the global
// environment (-g). Without either, tmux would use the "current"
// session: tmux-mcp's hidden one.
func envScope(ctx context.Context, srv *supervisor.Server, p tooldef.Args) (tmux.SessionID, error) {
	if p.Str("session_id") == "" && p.Str("session_name") == "" {
		return "", nil
	}
	s, err := findSession(ctx, srv, p)
	if err != nil {
		return "", err
	}
	return s.ID, nil
}

// envNameProblem says what is wrong with an environment variable name, or
// "": tmux refuses '=' and NUL, and a quote, a ';' or a control character
// (a newline) would make show-environment's output ambiguous to read
// back (tmux prints names as they are).
func envNameProblem(name string) string {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return r == '=' || r == '"' || r == ';' || r < 0x20 || r == 0x7f
	}) {
		return "want a non-empty name without '=', '\"', ';', NUL or control characters (a newline)"
	}
	return ""
}

// ShowEnvironment lists the global or a session's environment. At the
// readonly tier it shows names only: the global environment is tmux-mcp's
// own (tokens included), and reading it should take more than a read.
func ShowEnvironment(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("show_environment", "Global or session environment (removed: \"-NAME\": true; readonly tier: names only, values null).",
		tooldef.Read,
		tooldef.Object(map[string]any{"variables": map[string]any{"type": "object",
			"additionalProperties": tooldef.AnyOf("string", "boolean", "null")},
			"values_hidden": tBool, "matched": tInt, "left_out": tInt, "unreadable": tInt, "note": tString}),

		pSessionName, pSessionID, pSocket, pFilters, pLimitItems)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, la, err := d.listOnServer(ctx, p, listLimit)
		if err != nil {
			return nil, err
		}
		session, err := envScope(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		// A variable whose record cannot be read (a name a pane's program
		// set, holding what tmux's output cannot carry) is left out and
		// counted, never the whole call's failure.
		parsed, skipped, err := srv.ShowEnvironment(ctx, session)
		if err != nil {
			return nil, err
		}
		// Filters see names only: a filter on values would read them at
		// the readonly tier, one guess at a time.
		type envName struct {
			Name string `json:"name"`
		}
		names := make([]envName, 0, len(parsed))
		for _, name := range slices.Sorted(maps.Keys(parsed)) {
			names = append(names, envName{name})
		}
		pg, err := tooldef.Paginate(names, la.Filters, la.Limit, false)
		if err != nil {
			return nil, err
		}
		vars := map[string]any{}
		for _, n := range pg.Items {
			name, v := n.Name, parsed[n.Name]
			if v == nil {
				// Removed from this environment (set-environment -r/-u).
				vars["-"+name] = true
			} else {
				vars[name] = *v
			}
		}
		hidden := d.Tier < Mutating
		if hidden {
			for name, v := range vars {
				if _, isValue := v.(string); isValue {
					vars[name] = nil
				}
			}
		}
		var note string
		if skipped > 0 {
			note = fmt.Sprintf("%d entries of tmux's listing could not be read and are left out: variables a program set with names tmux prints ambiguously (set_environment refuses such names)", skipped)
		}
		return pageResult(struct {
			Variables    map[string]any `json:"variables"`
			ValuesHidden bool           `json:"values_hidden"`
			Matched      int            `json:"matched"`
			LeftOut      int            `json:"left_out"`
			Unreadable   int            `json:"unreadable,omitempty"`
			Note         string         `json:"note,omitempty"`
		}{vars, hidden, pg.Matched, pg.LeftOut, skipped, note}, pg.LeftOut, pg.Matched, "raise limit")
	})
}

// SetEnvironment sets a variable in the global or a session's environment.
func SetEnvironment(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("set_environment", "Set a variable in the global or a session's environment.",
		tooldef.Mutate, tooldef.Record(tString, []string{"name", "value", "status"}, nil),
		mcp.WithString("name", mcp.Required()), mcp.WithString("value", mcp.Required()),
		pSessionName, pSessionID, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		name, value := p.Str("name"), p.Str("value")
		if why := envNameProblem(name); why != "" {
			return nil, tooldef.BadArg("name", "%s", why)
		}
		if strings.ContainsRune(value, 0) {
			return nil, tooldef.BadArg("value", "contains NUL")
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		session, err := envScope(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		if err := srv.SetEnvironment(ctx, session, name, value); err != nil {
			return nil, err
		}
		return structured(map[string]string{"name": name, "value": value, "status": "set"})
	})
}
