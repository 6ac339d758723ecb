package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// maxCompletions is the most values one completion returns (the protocol's
// limit); Total and HasMore tell the client there are more.
const maxCompletions = 100

// completer answers completion/complete for the variables of the resource
// templates and the prompt arguments that name tmux objects: session
// names, window indexes and pane IDs of the default server, and socket
// names from the socket directory. Values start with what the user typed,
// sorted, at most 100. A completion never starts a tmux server: with none
// running it offers nothing. Other arguments complete to nothing.
type completer struct {
	sup       *supervisor.Supervisor
	socketDir string
}

// CompleteResourceArgument completes a variable of one of the tmux://
// templates; window_index is narrowed by a session_name already chosen.
func (c completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	switch uri {
	case URISessions, URISession, URISessionWindows, URIWindow, URIPane, URIPaneContent:
		return c.complete(ctx, arg, cc.Arguments["session_name"])
	}
	return &mcp.Completion{Values: []string{}}, nil
}

// CompletePromptArgument completes the pane_id and socket_name arguments
// of the prompts (build_dev_workspace's session_name names a session that
// does not exist yet, so it has no completion).
func (c completer) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	switch {
	case arg.Name == "pane_id", prompt == "recover_after_crash" && arg.Name == "socket_name":
		return c.complete(ctx, arg, "")
	}
	return &mcp.Completion{Values: []string{}}, nil
}

// complete lists the candidates for arg and keeps those with its prefix.
func (c completer) complete(ctx context.Context, arg mcp.CompleteArgument, session string) (*mcp.Completion, error) {
	var all []string
	switch arg.Name {
	case "socket_name":
		all = c.sockets()
	case "session_name", "window_index", "pane_id":
		srv, err := c.sup.Existing(ctx, c.sup.Config().DefaultSocket)
		if err != nil {
			break // no server, or it is restarting: nothing to offer
		}
		all = objects(ctx, srv, arg.Name, session)
	}
	var out []string
	for _, v := range all {
		if strings.HasPrefix(v, arg.Value) {
			out = append(out, v)
		}
	}
	res := &mcp.Completion{Values: out, Total: len(out)}
	if len(out) > maxCompletions {
		res.Values, res.HasMore = out[:maxCompletions], true
	}
	if res.Values == nil {
		res.Values = []string{}
	}
	return res, nil
}

// objects returns the session names, window indexes (of session, if set)
// or pane IDs of srv, sorted; nil on any error.
func objects(ctx context.Context, srv *supervisor.Server, kind, session string) []string {
	var out []string
	switch kind {
	case "session_name":
		sessions, err := srv.ListSessions(ctx)
		if err != nil {
			return nil
		}
		for _, s := range sessions {
			out = append(out, s.Name)
		}
		slices.Sort(out)
	case "window_index":
		windows, err := srv.ListWindows(ctx)
		if err != nil {
			return nil
		}
		var idx []int
		for _, w := range windows {
			if session == "" || w.SessionName == session {
				idx = append(idx, w.Index)
			}
		}
		slices.Sort(idx)
		for _, i := range slices.Compact(idx) {
			out = append(out, strconv.Itoa(i))
		}
	case "pane_id":
		panes, err := srv.ListPanes(ctx)
		if err != nil {
			return nil
		}
		var ids []int
		for _, p := range panes {
			if n, err := strconv.Atoi(strings.TrimPrefix(string(p.ID), "%")); err == nil {
				ids = append(ids, n)
			}
		}
		slices.Sort(ids)
		for _, n := range ids {
			out = append(out, "%"+strconv.Itoa(n))
		}
	}
	return out
}

// sockets returns the names of the sockets in the socket directory that
// tmux-mcp would connect to (tmux.CheckSocket): another user's socket is
// not suggested.
func (c completer) sockets() []string {
	if c.socketDir == "" {
		return nil
	}
	entries, err := os.ReadDir(c.socketDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type()&os.ModeSocket != 0 && tmux.CheckSocket(filepath.Join(c.socketDir, e.Name())) == nil {
			out = append(out, e.Name())
		}
	}
	return out
}
