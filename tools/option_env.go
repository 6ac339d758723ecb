package tools

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// envScope returns -t $N for the session a call names, or -g. Without
// either, tmux would use the "current" session: tmux-mcp's hidden one.
func envScope(ctx context.Context, srv *supervisor.Server, p params) ([]string, error) {
	if p.str("session_id") == "" && p.str("session_name") == "" {
		return []string{"-g"}, nil
	}
	s, err := findSession(ctx, srv, p)
	if err != nil {
		return nil, err
	}
	return []string{"-t", string(s.ID)}, nil
}

// ShowEnvironment lists the global or a session's environment. At the
// readonly tier it shows names only: the global environment is tmux-mcp's
// own (tokens included), and reading it should take more than a read.
func ShowEnvironment(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("show_environment", "Show the global or a session's environment (removed: \"-NAME\": true; readonly tier: names only, values null).",
		hintsRead,
		object(map[string]any{"variables": map[string]any{"type": "object",
			"additionalProperties": anyOf("string", "boolean", "null")},
			"values_hidden": tBool, "matched": tInt, "left_out": tInt}),
		pSessionName, pSessionID, pSocket, pFilters, pLimitItems)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		filters, err := p.object("filters")
		if err != nil {
			return nil, err
		}
		limit, err := limitArg(p, listLimit)
		if err != nil {
			return nil, err
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		scope, err := envScope(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		out, err := srv.Do(ctx, append(append([]string{}, tmux.EnvironmentArgs...), scope...)...)
		if err != nil {
			return nil, err
		}
		parsed, err := tmux.ParseEnvironment(out)
		if err != nil {
			return nil, err
		}
		// Filters see names only: a filter on values would read them at
		// the readonly tier, one guess at a time.
		type envName struct {
			Name string `json:"name"`
		}
		names := make([]envName, 0, len(parsed))
		for _, name := range sortedKeys(parsed) {
			names = append(names, envName{name})
		}
		pg, err := paginate(names, filters, limit, false)
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
		return pageResult(struct {
			Variables    map[string]any `json:"variables"`
			ValuesHidden bool           `json:"values_hidden"`
			Matched      int            `json:"matched"`
			LeftOut      int            `json:"left_out"`
		}{vars, hidden, pg.Matched, pg.LeftOut}, pg.LeftOut, pg.Matched, "raise limit")
	})
}

// SetEnvironment sets a variable in the global or a session's environment.
func SetEnvironment(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("set_environment", "Set a variable in the global or a session's environment.",
		hintsMutate, record(tString, []string{"name", "value", "status"}, nil),
		mcp.WithString("name", mcp.Required()), mcp.WithString("value", mcp.Required()),
		pSessionName, pSessionID, pSocket)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		name, value := p.str("name"), p.str("value")
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return nil, argError("name", "want a non-empty name without '=' or NUL")
		}
		if strings.ContainsRune(value, 0) {
			return nil, argError("value", "contains NUL")
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		scope, err := envScope(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		if _, err := srv.Do(ctx, append(append([]string{"set-environment"}, scope...), "--", name, value)...); err != nil {
			return nil, err
		}
		return structured(map[string]string{"name": name, "value": value, "status": "set"})
	})
}
