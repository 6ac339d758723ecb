package supervisor

// Looking at tmux without supervising it: the binary's version, and a
// server tmux-mcp must not adopt.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// TmuxVersion returns the version of the tmux binary (tmux -V), for
// `tmux-mcp version`. It contacts no server.
func TmuxVersion(ctx context.Context, binary string) (string, error) {
	c, err := tmux.NewClient(tmux.ClientOptions{Binary: binary, Socket: tmux.Socket{Name: "tmux-mcp"}})
	if err != nil {
		return "", err
	}
	v, err := c.ClientVersion(ctx)
	if err != nil {
		return "", fmt.Errorf("supervisor: tmux version: %w", err)
	}
	return v.Raw, nil
}

// Probe returns the identity of the server on sock without supervising it:
// no control connection, no hidden session, never a server start. A server
// already supervised answers through its supervision. list_servers uses it
// to look at servers tmux-mcp must not adopt.
func (s *Supervisor) Probe(ctx context.Context, sock tmux.Socket) (tmux.ServerInfo, error) {
	if err := sock.Validate(); err != nil {
		return tmux.ServerInfo{}, err
	}
	s.mu.Lock()
	srv, ok := s.servers[sock]
	s.mu.Unlock()
	if ok {
		return srv.Info(ctx)
	}
	c, err := tmux.NewClient(tmux.ClientOptions{Binary: s.cfg.Binary, Socket: sock})
	if err != nil {
		return tmux.ServerInfo{}, err
	}
	return c.Info(ctx)
}

// Alive returns the PID of the server that answers on the socket now. It
// asks over exec and skips the health gate, so it never adopts, restarts
// or starts a server: a dead server yields an error matching
// tmux.IsServerDown. A tmux client waiting in `wait-for` exits 0 both when
// its channel is signalled and when the server goes away; comparing the
// PID before and after the wait tells the two apart.
func (s *Server) Alive(ctx context.Context) (int, error) {
	out, err := s.callOn(ctx, "display-message", s.client.Exec(), func(ctx context.Context, tr tmux.Transport) ([]byte, error) {
		return tr.Run(ctx, "display-message", "-p", "#{pid}")
	})
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("supervisor: server pid: unexpected answer of %d bytes", len(out))
	}
	return pid, nil
}
