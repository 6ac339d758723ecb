package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// paneIDRe is a pane ID as tmux writes it (%3), the tool layer's rule.
var paneIDRe = regexp.MustCompile(`^%[0-9]+$`)

// subKind is what a subscription watches.
type subKind int

const (
	kindPane      subKind = iota + 1 // a pane's content, from its watcher
	kindStructure                    // a session listing, from structure events
	kindHealth                       // tmux://health, from state events
	kindJob                          // tmux://jobs/{job_id}, from the job table
	kindRemote                       // tmux://hosts/{host}/..., from that host's tmux-mcp
)

// subTemplate is a subscribable resource template.
type subTemplate struct {
	tmpl *mcp.URITemplate
	kind subKind
}

// subTarget is a parsed subscribable URI: what a subscription watches.
type subTarget struct {
	kind    subKind
	sock    tmux.Socket
	pane    tmux.PaneID
	session string // named-session listings
	job     string
	host    string // kindRemote: the host, and the URI as it names it
	remote  string
}

// parse resolves a URI to what it watches, without calling tmux.
func (m *subscriptions) parse(uri string) (subTarget, error) {
	def := m.c.Sup.Config().DefaultSocket
	if host, path, ok := splitHostURI(uri); ok && m.hosts != nil {
		if path == "" {
			return subTarget{}, fmt.Errorf("want tmux://hosts/%s/ followed by a resource of that host", host)
		}
		return subTarget{kind: kindRemote, host: host, remote: "tmux://" + path}, nil
	}
	if uri == URIHealth {
		return subTarget{kind: kindHealth, sock: def}, nil
	}
	for _, t := range m.templates {
		if !t.tmpl.Regexp().MatchString(uri) {
			continue
		}
		v := Vars{}
		for name, val := range t.tmpl.Match(uri) {
			v[name] = val.V
		}
		if t.kind == kindJob {
			// A job's end is the job table's news: no watcher needed.
			return subTarget{kind: kindJob, job: v.Get("job_id")}, nil
		}
		sock, err := m.c.SocketArg(v.Get("socket_name"))
		if err != nil {
			return subTarget{}, err
		}
		if sock == (tmux.Socket{}) {
			sock = def
		}
		tg := subTarget{kind: t.kind, sock: sock, session: v.Get("session_name")}
		if t.kind == kindPane {
			tg.pane = tmux.PaneID(v.Get("pane_id"))
			if !paneIDRe.MatchString(string(tg.pane)) {
				return subTarget{}, fmt.Errorf("pane_id must be a pane ID like %%3 (percent-encoded in a URI: %%253)")
			}
		}
		if m.c.Sup.Config().ExecOnly {
			return subTarget{}, errors.New("tmux-mcp runs exec-only (no control mode), so it cannot see panes print or " +
				"sessions change; read the resource when you need it, or restart tmux-mcp without --exec-only")
		}
		return tg, nil
	}
	if tmplOf(URIPane).Regexp().MatchString(uri) {
		return subTarget{}, fmt.Errorf("not subscribable: pane metadata (title, command, path) changes without telling tmux-mcp; subscribable: %s", subscribable)
	}
	return subTarget{}, fmt.Errorf("not a subscribable tmux-mcp resource; subscribable: %s", subscribable)
}

// prepare parses uri and opens what it watches (for a pane, its change
// stream: changes from now on are never missed), without starting to send.
func (m *subscriptions) prepare(ctx context.Context, uri string) (*subscription, error) {
	tg, err := m.parse(uri)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sub := &subscription{m: m, uri: uri, kind: tg.kind, sock: tg.sock, pane: tg.pane, job: tg.job,
		kick: make(chan struct{}, 1), ctx: sctx, cancel: cancel, quit: make(chan struct{}), done: make(chan struct{})}
	if tg.kind == kindJob {
		j, err := m.c.LookupJob(ctx, tg.job)
		if err != nil {
			cancel()
			return nil, ResourceNotFound("Job not found: %s", tg.job)
		}
		if !j.Running() {
			sub.kick <- struct{}{} // it ended: one update, sent once started
		}
	}
	switch {
	case tg.kind == kindRemote:
		changes, stop, err := m.hosts.Subscribe(ctx, tg.host, tg.remote)
		if err != nil {
			cancel()
			return nil, err
		}
		sub.changes, sub.stopChanges = changes, stop
	case tg.kind == kindPane || tg.session != "":
		if err := sub.open(ctx, tg); err != nil {
			cancel()
			return nil, err
		}
	case tg.kind == kindStructure:
		// tmux://sessions names no session, but its updates come from the
		// server's control connection as well: without a call that reached
		// the server first, nothing would report sessions coming. A server
		// that is not running is no error: there is nothing to list yet.
		_, _ = m.c.Sup.Existing(ctx, tg.sock)
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		sub.stop()
		return nil, supervisor.ErrClosed
	}
	m.live[sub] = true
	m.mu.Unlock()
	return sub, nil
}

// open checks that what tg names exists, and for a pane opens its change
// stream. It never starts a tmux server.
func (sub *subscription) open(ctx context.Context, tg subTarget) error {
	srv, err := sub.m.c.Sup.Existing(ctx, tg.sock)
	if err != nil {
		return fmt.Errorf("tmux server %s: %w", tg.sock, err)
	}
	if tg.kind != kindPane {
		if err := sub.m.c.FindSession(ctx, srv, tg.session); err != nil {
			return ResourceNotFound("Session not found: %s", tg.session)
		}
		return nil
	}
	changes, stop, err := srv.PaneChanges(sub.ctx, tg.pane)
	switch {
	case errors.Is(err, tmux.ErrPaneNotFound):
		return ResourceNotFound("Pane not found: %s", tg.pane)
	case errors.Is(err, supervisor.ErrNotWatched):
		// No watcher connection covers the pane and no pipe feed could
		// be had (its output is piped elsewhere, or too many are open).
		return fmt.Errorf("pane %s cannot be watched (%v); read the resource when you need it", tg.pane, err)
	case err != nil:
		return fmt.Errorf("watch pane %s: %w", tg.pane, err)
	}
	sub.srv, sub.changes, sub.stopChanges = srv, changes, stop
	return nil
}
