package tools

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// probeCandidate returns what list_servers says of the socket at path,
// and false for a path it leaves out: one that does not exist, is not a
// socket, or where nothing listens (a stale socket). Anyone can make a
// socket in a directory they can write to, or name one in
// extra_socket_paths, and a tmux client trusts whoever answers on it, so
// the order is the point: tmux.CheckSocket first (owner and directories,
// from the file system alone), then a bare connect that sends nothing,
// then the probe, whose client checks the listener's uid as well. A
// socket refused by either check is listed with the reason (never
// silently dropped, so the person sees that someone put it there) and is
// not connected to.
func probeCandidate(ctx context.Context, sup *supervisor.Supervisor, path string) (ServerInfo, bool) {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 {
		return ServerInfo{}, false
	}
	name := filepath.Base(path)
	info := ServerInfo{SocketName: &name, SocketPath: &path}
	if err := tmux.CheckSocket(path); err != nil {
		why := err.Error()
		info.Refused = &why
		return info, true
	}
	if !listening(path) {
		return ServerInfo{}, false
	}
	si, err := sup.Probe(ctx, tmux.Socket{Path: path})
	var ce *tmux.CommandError
	switch {
	case errors.Is(err, tmux.ErrUntrustedSocket) && errors.As(err, &ce):
		// The socket is ours but another user listens on it.
		info.Refused = &ce.Stderr
		return info, true
	case err != nil:
		return ServerInfo{}, false // gone between the connect and the query
	}
	info.IsAlive, info.SessionCount, info.Version = true, si.Sessions, optional(si.Version.Raw)
	info.Owner = optional(agent.TeamOwner(ctx, name))
	info.Agents = agentsOn(ctx, sup, tmux.Socket{Path: path})
	return info, true
}

// agentsOn counts the panes of the server on sock that run a known agent
// CLI, by CLI, looking without supervising it (nil: none, or the panes
// could not be listed).
func agentsOn(ctx context.Context, sup *supervisor.Supervisor, sock tmux.Socket) map[string]int {
	panes, err := sup.ProbePanes(ctx, sock)
	if err != nil {
		return nil
	}
	var n map[string]int
	for _, pn := range panes {
		if pn.Dead || pn.PID <= 0 {
			continue
		}
		below, err := jobs.PaneTree(ctx, pn.PID)
		if err != nil {
			continue
		}
		if name, _, ok := agent.Detect(agent.Processes(ctx, append([]int{pn.PID}, below...))); ok {
			if n == nil {
				n = map[string]int{}
			}
			n[string(name)]++
		}
	}
	return n
}

// listening reports whether something accepts connections on the unix
// socket at path, so stale sockets are skipped without a query. Only for
// a path CheckSocket trusts.
func listening(path string) bool {
	c, err := net.DialTimeout("unix", path, 100*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
