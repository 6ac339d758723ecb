package tools

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/view"
)

// View is the live view's source (package view, mcpserver.NewViewSource)
// over this server's supervisor, jobs, journal and agent rules. It starts
// no tmux server and changes nothing, unless typing was asked for
// (view.Typist, used by the page only when --view-input is set).
func (s *Server) View() view.Source { return s.deps.viewSource() }

// viewSource is the view's source over d.
func (d Deps) viewSource() mcpserver.ViewSource {
	returns := &returnsMemo{j: d.Journal}
	c := mcpserver.ViewConfig{Sup: d.Sup, Events: d.events(), Jobs: d.jobs, Type: d.viewType,
		Agent: func(ctx context.Context, srv *supervisor.Server, p tmux.Pane) (*view.Agent, error) {
			a, _, err := d.readAgent(ctx, srv, p)
			if err != nil || a == nil {
				return nil, err
			}
			r := returns.of(srv.Socket(), p.ID)
			return &view.Agent{Name: a.Name, State: a.State, Question: a.Question, Return: r.Return, ReturnWhy: r.Why}, nil
		}}
	if d.Journal != nil {
		c.Journal = func(sock tmux.Socket, limit int) ([]view.Event, error) {
			evs, err := d.Journal.Events(sock, time.Time{}, limit)
			if err != nil {
				return nil, err
			}
			out := make([]view.Event, 0, len(evs))
			for _, e := range evs {
				out = append(out, view.Event{Time: e.Time, Type: e.Type, Cause: e.Cause, Detail: e.Detail})
			}
			return out, nil
		}
	}
	return mcpserver.NewViewSource(c)
}

// returnsMemo keeps each server's Journal.AgentReturns for a second: the
// view asks for every agent pane at every refresh, and each answer is a
// read of the journal's latest snapshot.
type returnsMemo struct {
	j  Journal
	mu sync.Mutex
	at map[tmux.Socket]time.Time
	rs map[tmux.Socket]map[tmux.PaneID]AgentReturn
}

// of is what becomes of pane's agent on sock's server (nothing while the
// journal is off or cannot say).
func (m *returnsMemo) of(sock tmux.Socket, pane tmux.PaneID) AgentReturn {
	if m.j == nil {
		return AgentReturn{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if time.Since(m.at[sock]) > time.Second {
		if m.at == nil {
			m.at, m.rs = map[tmux.Socket]time.Time{}, map[tmux.Socket]map[tmux.PaneID]AgentReturn{}
		}
		rs, _ := m.j.AgentReturns(sock) //nolint:errcheck // an unreadable journal says nothing
		m.at[sock], m.rs[sock] = time.Now(), rs
	}
	return m.rs[sock][pane]
}

// viewType types text into pane (then Enter) for the view, as send_keys
// does, one typist at a time per pane, at the destructive tier only.
func (d Deps) viewType(ctx context.Context, srv *supervisor.Server, id tmux.PaneID, text string, enter bool) error {
	if d.Tier < Destructive {
		return errors.New("typing from the view needs the destructive tier")
	}
	unlock, err := d.panes.lock(ctx, srv.Socket(), id)
	if err != nil {
		return err
	}
	defer unlock()
	if text != "" {
		if err := drive.SendLiteral(ctx, srv, id, text); err != nil {
			return err
		}
	}
	if enter {
		return srv.TypeKeys(ctx, id, "Enter")
	}
	return nil
}
