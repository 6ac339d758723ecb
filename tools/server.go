package tools

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// ListSessions lists the sessions of a server.
func ListSessions(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("list_sessions", "List sessions.", tooldef.Read, pageOf("result", tooldef.WithCaller(sessionSchema)),
		pSocket, pFilters, pLimitItems)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, la, err := d.listOnServer(ctx, p, listLimit)
		if err != nil {
			return nil, err
		}
		sessions, err := srv.ListSessions(ctx)
		if err != nil {
			return nil, err
		}
		m, err := d.guard().Marks(ctx, srv)
		if err != nil {
			return nil, err
		}
		out := make([]SessionInfo, 0, len(sessions))
		for _, s := range sessions {
			info := sessionInfo(s)
			info.IsCaller = m.IsSession(s.ID)
			out = append(out, info)
		}
		pg, err := tooldef.Paginate(out, la.Filters, la.Limit, false)
		if err != nil {
			return nil, err
		}
		return listPage(pg, "raise limit")
	})
}

// ListServers finds live tmux servers in the socket directory and at the
// paths a caller names. A tmux client trusts its server completely, and
// anyone can make a socket: every candidate goes through tmux.CheckSocket
// before anything connects to it (see probeCandidate), and a refused one
// is listed with the reason, never probed.
func ListServers(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("list_servers", "Live tmux servers (socket dir, extra paths), agents per CLI, a team's owner; others' sockets: refused.",
		tooldef.Read, pageOf("result", serversSchema),
		mcp.WithArray("extra_socket_paths", mcp.WithStringItems()), pFilters)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		la, err := tooldef.ParseListArgs(p, 0) // no limit parameter: no limit
		if err != nil {
			return nil, err
		}
		var paths []string
		if d.SocketDir != "" {
			entries, err := os.ReadDir(d.SocketDir)
			if err != nil && !os.IsNotExist(err) {
				return nil, &toolError{msg: "cannot read socket directory: " + err.Error(), class: "permission"}
			}
			for _, e := range entries {
				paths = append(paths, filepath.Join(d.SocketDir, e.Name()))
			}
			sort.Strings(paths)
		}
		paths = append(paths, p.Strings("extra_socket_paths")...)
		out := []ServerInfo{}
		for _, path := range paths {
			if info, ok := probeCandidate(ctx, d.Sup, path); ok {
				out = append(out, info)
			}
		}
		pg, err := tooldef.Paginate(out, la.Filters, la.Limit, false)
		if err != nil {
			return nil, err
		}
		return listPage(pg, "")
	})
}

// CreateSession creates a detached session.
func CreateSession(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("create_session", "Create a detached session.", tooldef.Create, sessionSchema,
		mcp.WithString("session_name"),
		mcp.WithString("window_name"),
		mcp.WithString("start_directory"),
		mcp.WithInteger("x", mcp.Min(1), mcp.Max(10000)),
		mcp.WithInteger("y", mcp.Min(1), mcp.Max(10000)),
		pEnvironment, pSocket, pNoHistory, pRestoreCommand)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		name := p.Str("session_name")
		if name != "" {
			if err := checkSessionName(name); err != nil {
				return nil, err
			}
		}
		if err := checkWindowName("window_name", p.Str("window_name")); err != nil {
			return nil, err
		}
		env, err := envVars(p)
		if err != nil {
			return nil, err
		}
		o := supervisor.NewSessionOptions{Name: name, WindowName: p.Str("window_name"),
			Spawn: supervisor.Spawn{StartDir: p.Str("start_directory"), Env: env}}
		o.Width, _ = p.Int("x")
		o.Height, _ = p.Int("y")
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		sid, pane, err := srv.NewSession(ctx, o)
		if err != nil {
			return nil, err
		}
		d.recordCreated(srv, pane, nil, p.Str("start_directory"), env, p.Bool("restore_command"))
		s, err := sessionByID(ctx, srv, sid)
		if err != nil {
			return nil, err
		}
		return d.sessionResult(ctx, srv, s)
	})
}

// checkSessionName applies tmux's and libtmux's rules, and keeps the
// supervisor's hidden session name for the supervisor. A name tmux would
// store otherwise is refused: a call answers with exactly the name asked.
func checkSessionName(name string) error {
	reason := ""
	switch {
	case strings.Contains(name, "."):
		reason = "contains periods"
	case strings.Contains(name, ":"):
		reason = "contains colons"
	case name == tmux.HiddenSession:
		reason = "reserved for tmux-mcp"
	default:
		reason = tmux.NameRewritten(name)
	}
	if reason != "" {
		return &toolError{msg: "Bad session name: " + reason + " (session name: " + name + ")", class: "argument"}
	}
	return nil
}

// checkWindowName refuses a window name tmux would store otherwise.
func checkWindowName(param, name string) error {
	if why := tmux.NameRewritten(name); why != "" {
		return tooldef.BadArg(param, "%s", why)
	}
	return nil
}

// historyEnv is what suppress_persistent_history sets.
var historyEnv = map[string]string{"HISTFILE": "", "fish_history": "", "fish_private_mode": "1", "HISTCONTROL": "ignorespace"}

// envVars returns the NAME=VALUE variables of the environment argument,
// merged with the history settings when asked. Values are never echoed.
func envVars(p tooldef.Args) ([]string, error) {
	env, err := p.Object("environment")
	if err != nil {
		return nil, err
	}
	if p.Bool("suppress_persistent_history") {
		if env == nil {
			env = map[string]string{}
		}
		for k, v := range historyEnv {
			old, set := env[k]
			switch {
			case !set:
				env[k] = v
			case k == "HISTCONTROL" && !strings.Contains(old, "ignorespace"):
				env[k] = old + ":ignorespace"
			case k != "HISTCONTROL" && old != v:
				return nil, tooldef.BadArg("environment", "%s conflicts with suppress_persistent_history", k)
			}
		}
	}
	var vars []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if why := envNameProblem(k); why != "" {
			return nil, tooldef.BadArg("environment", "names: %s", why)
		}
		if strings.ContainsRune(env[k], 0) {
			return nil, tooldef.BadArg("environment", "value of %s contains NUL", k)
		}
		vars = append(vars, k+"="+env[k])
	}
	return vars, nil
}

// KillServer kills a tmux server.
func KillServer(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("kill_server", "Kill the tmux server.", tooldef.Destructive, messageSchema,
		pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		sock, err := d.socket(p)
		if err != nil {
			return nil, err
		}
		ask := func(pane tmux.PaneID) error {
			where := "where this agent runs"
			if pane != "" {
				where = "including pane " + string(pane) + " " + where
			}
			return d.guard().AllowSelf(ctx, guard.SelfAct{Refusal: guard.RefuseServer,
				Ask: "kill_server would kill tmux server " + sock.String() + " and every pane in it, " + where + ". Allow it?"})
		}
		asked := d.guard().CallerOnServer(sock) || guard.HopCallersOf(ctx).OnServer(sock)
		if asked {
			if err := ask(d.Caller.Pane); err != nil {
				return nil, err
			}
		}
		// Existing never starts a server: starting one to kill it would be
		// absurd, and the caller would think it had killed something. While
		// a restart is pending it fails fast with the restart's error.
		srv, err := d.Sup.Existing(ctx, sock)
		if errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrSocketMissing) {
			return nil, &toolError{msg: "no tmux server running on " + sock.String() + "; nothing to kill",
				class: tmux.ClassName(err), hint: "Call list_servers to find running servers."}
		}
		if err != nil {
			return nil, err
		}
		if !asked {
			if own, err := d.guard().OwnPanesOn(ctx, srv, false); err != nil {
				return nil, err
			} else if len(own.Panes) > 0 {
				if err := ask(own.Panes[0]); err != nil {
					return nil, err
				}
			}
		}
		if err := srv.Kill(ctx); err != nil {
			return nil, err
		}
		return message("Server killed successfully")
	})
}

// GetServerInfo describes a tmux server.
func GetServerInfo(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("get_server_info", "Describe a tmux server.", tooldef.Read, serverInfoSchema,
		pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		sock, err := d.socket(p)
		if err != nil {
			return nil, err
		}
		res := ServerInfo{SocketName: optional(sock.Name), SocketPath: optional(sock.Path)}
		srv, err := d.server(ctx, p)
		if err == nil {
			var info tmux.ServerInfo
			if info, err = srv.Info(ctx); err == nil {
				res.IsAlive, res.SessionCount = true, info.Sessions
				res.Version, res.SocketPath = optional(info.Version.Raw), optional(info.SocketPath)
			}
		}
		if err != nil && !tmux.IsServerDown(err) {
			return nil, err
		}
		return structured(res)
	})
}
