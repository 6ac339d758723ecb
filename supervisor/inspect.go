package supervisor

// Looking at tmux without supervising it: the binary's version, and a
// server tmux-mcp must not adopt.

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/tmux"
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

// teamLead recognises the private server of an agent team (agent.TeamLead),
// which is its owner's to start: never started, restarted or restored here.
func (s *Server) teamLead() (agent.Name, int, bool) {
	return agent.TeamLead(filepath.Base(s.sock.ResolvedPath()))
}

// looker answers for a server tmux-mcp only looks at: its supervision
// when it has one, else a client that attaches no control connection,
// makes no hidden session and never starts a server.
type looker interface {
	Info(ctx context.Context) (tmux.ServerInfo, error)
	ListPanes(ctx context.Context) ([]tmux.Pane, error)
}

func (s *Supervisor) looker(sock tmux.Socket) (looker, error) {
	s.mu.Lock()
	srv, ok := s.servers[sock]
	s.mu.Unlock()
	if ok {
		return srv, nil
	}
	return tmux.NewClient(tmux.ClientOptions{Binary: s.cfg.Binary, Socket: sock})
}

// ProbePanes lists the panes of the server on sock as Probe looks at it:
// without supervising it.
func (s *Supervisor) ProbePanes(ctx context.Context, sock tmux.Socket) ([]tmux.Pane, error) {
	l, err := s.looker(sock)
	if err != nil {
		return nil, err
	}
	return l.ListPanes(ctx)
}

// Probe returns the identity of the server on sock without supervising it:
// no control connection, no hidden session, never a server start. A server
// already supervised answers through its supervision. list_servers uses it
// to look at servers tmux-mcp must not adopt.
func (s *Supervisor) Probe(ctx context.Context, sock tmux.Socket) (tmux.ServerInfo, error) {
	l, err := s.looker(sock)
	if err != nil {
		return tmux.ServerInfo{}, err
	}
	return l.Info(ctx)
}
