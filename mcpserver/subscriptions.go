package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
)

// subscribable lists what resources/subscribe accepts, for error messages.
const subscribable = "tmux://panes/{pane_id}/content, tmux://sessions, tmux://sessions/{session_name}, " +
	"tmux://sessions/{session_name}/windows, tmux://sessions/{session_name}/windows/{window_index} " +
	"(each with an optional ?socket_name=), tmux://jobs/{job_id} and tmux://health; with --host, any of these " +
	"on a host as tmux://hosts/{host}/ followed by the address without tmux://"

// subscriptions serves resources/subscribe and resources/unsubscribe: it
// sends notifications/resources/updated when a subscribed resource may
// have changed, to the client session that subscribed, until it
// unsubscribes or the session ends.
//
//   - tmux://panes/{pane_id}/content: the watcher connection's %output for
//     the pane (supervisor.Server.PaneChanges), never polling: a silent pane
//     costs no tmux command. The pane being killed, its session or server
//     going away, is an update too (reading the resource then says what
//     happened).
//   - the session listings (tmux://sessions...): sessions and windows
//     coming, going or being renamed, and server deaths and restarts.
//   - tmux://jobs/{job_id}: the job's end (exited or lost). Subscribing
//     to a job that has ended already gets one update at once.
//   - tmux://health: the default server's state changes (death, restart,
//     restore, socket recreation, adoption, resource warnings and
//     refusals). Its counters change with every command and are not
//     pushed: read the resource for them.
//
// Updates of one resource to one session are coalesced: at most one per
// interval (100 ms), and always one after the last change. In exec-only
// mode there is no watcher and no control connection to see changes, so
// subscribing to a pane or a session listing fails with an error that says
// so; tmux://health can still be subscribed. On tmux 3.2a there is a
// control connection but no watcher (tmux.Capabilities.DeadPaneOutputCrash):
// session listings can be subscribed, a pane's content cannot.
//
// Both protocol eras are served: resources/subscribe (2025-11-25 and
// before; mcp-go acknowledges it, and the hooks here do the work) and the
// resource subscriptions of a subscriptions/listen stream (2026-07-28),
// which end with the stream.
type subscriptions struct {
	mcp   *server.MCPServer
	c     Config
	every time.Duration
	unsub func()
	// hosts relays subscriptions to other hosts' resources; nil without
	// --host.
	hosts Hosts

	templates []subTemplate

	mu sync.Mutex
	// owners maps a session ID (resources/subscribe) or a *listenStream
	// (subscriptions/listen) to its subscriptions by URI.
	owners map[any]map[string]*subscription
	// pending holds subscriptions prepared while a resources/subscribe
	// request is checked, until mcp-go has acknowledged it.
	pending map[pendingKey]*subscription
	// live is every prepared subscription, started or not: the event
	// dispatch wakes them.
	live   map[*subscription]bool
	closed bool
}

// pendingKey names one request of one session. The JSON-RPC ID is kept in
// its JSON form: a client may send any JSON there, and a map key must be
// comparable.
type pendingKey struct {
	session string
	id      string
}

func keyOf(session string, id any) pendingKey {
	b, _ := json.Marshal(id)
	return pendingKey{session, string(b)}
}

// listenStream owns the subscriptions of one subscriptions/listen request.
// It is not empty: pointers to distinct zero-size values may be equal, and
// each stream must be its own map key.
type listenStream struct{ id any }

func newSubscriptions(s *server.MCPServer, hooks *server.Hooks, c Config) *subscriptions {
	m := &subscriptions{mcp: s, c: c, every: c.NotifyEvery,
		owners: map[any]map[string]*subscription{}, pending: map[pendingKey]*subscription{}, live: map[*subscription]bool{}}
	m.templates = []subTemplate{
		{tmplOf(URIPaneContent), kindPane},
		{tmplOf(URISessions), kindStructure},
		{tmplOf(URISession), kindStructure},
		{tmplOf(URISessionWindows), kindStructure},
		{tmplOf(URIWindow), kindStructure},
		{tmplOf(URIJob), kindJob},
	}
	hooks.AddOnRequestInitialization(m.onRequest)
	hooks.AddAfterSubscribe(func(ctx context.Context, id any, _ *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			m.commit(cs.SessionID(), id)
		}
	})
	hooks.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, _ any, _ error) {
		if method != mcp.MethodResourcesSubscribe {
			return
		}
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			m.discardPending(keyOf(cs.SessionID(), id))
		}
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			m.remove(cs.SessionID(), req.Params.URI)
		}
	})
	hooks.AddBeforeSubscriptionsListen(m.listen)
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		m.removeOwner(cs.SessionID())
	})
	if c.Events != nil {
		m.unsub = c.Events.Subscribe(m.onEvent)
	}
	return m
}

func tmplOf(uri string) *mcp.URITemplate {
	return mcp.NewResourceTemplate(uri, "").URITemplate
}

// onRequest checks a resources/subscribe request before mcp-go handles it,
// so that a bad URI, a pane that does not exist or a resource that cannot
// be watched gets an error instead of a subscription that never fires
// (mcp-go's own handler accepts any URI). What it prepares waits in
// pending until the request succeeded. It also checks the resources of a
// subscriptions/listen request.
func (m *subscriptions) onRequest(ctx context.Context, id any, message any) error {
	raw, ok := message.(json.RawMessage)
	if !ok {
		return nil
	}
	var req struct {
		Method mcp.MCPMethod `json:"method"`
		Params struct {
			URI           string                 `json:"uri"`
			Notifications mcp.SubscriptionFilter `json:"notifications"`
			Meta          *mcp.Meta              `json:"_meta"`
		} `json:"params"`
	}
	// Only the two subscription methods are decoded in full.
	if !bytes.Contains(raw, []byte("resources/subscribe")) && !bytes.Contains(raw, []byte("subscriptions/listen")) {
		return nil
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil // mcp-go reports the malformed request
	}
	modern := mcp.IsModernProtocol(req.Params.Meta.ProtocolVersion())
	switch {
	case req.Method == mcp.MethodResourcesSubscribe && !modern:
		cs := server.ClientSessionFromContext(ctx)
		if cs == nil || req.Params.URI == "" {
			return nil // mcp-go answers these
		}
		sub, err := m.prepare(ctx, req.Params.URI)
		if err != nil {
			return fmt.Errorf("resources/subscribe %s: %w", req.Params.URI, err)
		}
		m.mu.Lock()
		key := keyOf(cs.SessionID(), id)
		old := m.pending[key]
		m.pending[key] = sub
		m.mu.Unlock()
		if old != nil {
			old.stop()
		}
	case req.Method == mcp.MethodSubscriptionsListen && modern:
		for _, uri := range req.Params.Notifications.ResourceSubscriptions {
			if _, err := m.parse(uri); err != nil {
				return fmt.Errorf("subscriptions/listen %s: %w", uri, err)
			}
		}
	}
	return nil
}

// commit starts the subscription that onRequest prepared for the request
// id of session, now that mcp-go has acknowledged it. Subscribing to a URI
// the session is already subscribed to keeps the first subscription.
func (m *subscriptions) commit(session string, id any) {
	key := keyOf(session, id)
	m.mu.Lock()
	sub := m.pending[key]
	delete(m.pending, key)
	if sub == nil || m.closed {
		m.mu.Unlock()
		if sub != nil {
			sub.stop()
		}
		return
	}
	subs := m.owners[session]
	if subs == nil {
		subs = map[string]*subscription{}
		m.owners[session] = subs
	}
	if subs[sub.uri] != nil {
		m.mu.Unlock()
		sub.stop()
		return
	}
	subs[sub.uri] = sub
	sub.send = func() {
		_ = m.mcp.SendNotificationToSpecificClient(session, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": sub.uri})
	}
	sub.start()
	m.mu.Unlock()
}

// discardPending drops what a failed resources/subscribe request prepared.
func (m *subscriptions) discardPending(key pendingKey) {
	m.mu.Lock()
	sub := m.pending[key]
	delete(m.pending, key)
	m.mu.Unlock()
	if sub != nil {
		sub.stop()
	}
}

// listen serves the resource subscriptions of a subscriptions/listen
// request (protocol 2026-07-28): each is sent on the request's stream and
// ends with it. A resource that cannot be opened (its pane is gone) gets
// one update, so the client reads it and learns why.
func (m *subscriptions) listen(ctx context.Context, id any, req *mcp.SubscriptionsListenRequest) {
	owner := &listenStream{id: id}
	send := func(uri string) func() {
		return func() {
			_ = m.mcp.SendNotificationToClient(ctx, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri})
		}
	}
	m.mu.Lock()
	m.owners[owner] = map[string]*subscription{}
	m.mu.Unlock()
	for _, uri := range req.Params.Notifications.ResourceSubscriptions {
		sub, err := m.prepare(ctx, uri)
		if err != nil {
			send(uri)()
			continue
		}
		m.mu.Lock()
		subs := m.owners[owner]
		if m.closed || subs == nil || subs[uri] != nil {
			m.mu.Unlock()
			sub.stop()
			continue
		}
		subs[uri] = sub
		sub.send = send(uri)
		sub.start()
		m.mu.Unlock()
	}
	context.AfterFunc(ctx, func() { m.removeOwner(owner) })
}

// remove ends owner's subscription to uri, if any. No update for it is
// sent once remove returns.
func (m *subscriptions) remove(owner any, uri string) {
	m.mu.Lock()
	sub := m.owners[owner][uri]
	delete(m.owners[owner], uri)
	m.mu.Unlock()
	if sub != nil {
		sub.stop()
	}
}

// removeOwner ends every subscription of owner: its session ended, or its
// listen stream closed.
func (m *subscriptions) removeOwner(owner any) {
	m.mu.Lock()
	var end []*subscription
	for _, sub := range m.owners[owner] {
		end = append(end, sub)
	}
	delete(m.owners, owner)
	if s, ok := owner.(string); ok {
		for k, sub := range m.pending {
			if k.session == s {
				delete(m.pending, k)
				end = append(end, sub)
			}
		}
	}
	m.mu.Unlock()
	for _, sub := range end {
		sub.stop()
	}
}

// total returns how many subscriptions are prepared or running.
func (m *subscriptions) total() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}

// onEvent wakes the subscriptions an event may concern. It runs on the
// emitting goroutine and never blocks.
func (m *subscriptions) onEvent(e supervisor.Event) {
	health, structure := healthChanges(e), changesResources(e)
	if !health && !structure {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for sub := range m.live {
		if sub.sock != e.Socket || (sub.kind == kindHealth && !health) || (sub.kind == kindStructure && !structure) ||
			sub.kind == kindPane || sub.kind == kindJob {
			continue
		}
		select {
		case sub.kick <- struct{}{}:
		default:
		}
	}
}

// jobChanged wakes the subscriptions to job id: it ended. It never blocks.
func (m *subscriptions) jobChanged(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for sub := range m.live {
		if sub.kind != kindJob || sub.job != id {
			continue
		}
		select {
		case sub.kick <- struct{}{}:
		default:
		}
	}
}

// healthChanges reports whether e changes what tmux://health shows beyond
// its counters.
func healthChanges(e supervisor.Event) bool {
	switch e.Type {
	case supervisor.EventServerDied, supervisor.EventRestarting, supervisor.EventRestarted, supervisor.EventRestored,
		supervisor.EventSocketRecreated, supervisor.EventServerAdopted, supervisor.EventServerStarted,
		supervisor.EventResourceWarning, supervisor.EventResourceRefused:
		return true
	}
	return false
}

func (m *subscriptions) close() {
	if m.unsub != nil {
		m.unsub()
	}
	m.mu.Lock()
	m.closed = true
	var all []*subscription
	for sub := range m.live {
		all = append(all, sub)
	}
	m.owners, m.pending = map[any]map[string]*subscription{}, map[pendingKey]*subscription{}
	m.mu.Unlock()
	for _, sub := range all {
		sub.stop()
	}
}
