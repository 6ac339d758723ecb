package hosts

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// remoteSubs are the resource subscriptions held on one host for this
// side's subscribers: one remote subscription per URI, however many
// subscribers; renewed on each new connection.
type remoteSubs struct {
	mu    sync.Mutex
	byURI map[string]map[chan struct{}]bool
}

// notify wakes the subscribers of uri (all when uri is ""): a signal
// each, never blocking (one pending signal is enough).
func (r *remoteSubs) notify(uri string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for u, chans := range r.byURI {
		if uri != "" && u != uri {
			continue
		}
		for ch := range chans {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// has reports whether uri has a subscriber.
func (r *remoteSubs) has(uri string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byURI[uri]) > 0
}

func (r *remoteSubs) uris() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.byURI))
	for u := range r.byURI {
		out = append(out, u)
	}
	return out
}

// onNotification relays a host's resource updates to the subscribers.
func (l *Link) onNotification(n mcp.JSONRPCNotification) {
	if n.Method != string(mcp.MethodNotificationResourceUpdated) {
		return
	}
	if uri, ok := n.Params.AdditionalFields["uri"].(string); ok {
		l.subs.notify(uri)
	}
}

// Renewals a host refuses are tried again this often, this many times,
// on the same connection.
const (
	renewEvery    = 500 * time.Millisecond
	renewAttempts = 60
)

// resubscribe renews every subscription on a new connection, and wakes
// the subscribers: what they watch may have changed while the host was
// away. A renewal the host refuses is tried again in the background
// while the connection lasts (renewLater).
func (l *Link) resubscribe(c *conn) {
	var refused []string
	for _, uri := range l.subs.uris() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := l.request(ctx, c, mcp.MethodResourcesSubscribe, uri); err != nil {
			l.o.Log.Debug("host: resubscribe refused, trying again", "host", l.t.Name, "uri", uri, "err", err)
			refused = append(refused, uri)
		}
		cancel()
	}
	l.subs.notify("")
	if len(refused) > 0 {
		go l.renewLater(c, refused)
	}
}

// renewLater tries the refused renewals again until they take, the
// connection ends, or the attempts run out. A refusal is often the
// previous connection's tmux-mcp still letting go: on tmux 3.2a it holds
// the pane's one pipe until it has drained, and the new one cannot watch
// the pane until then. A renewal that takes is an update (changes may
// have been missed meanwhile).
func (l *Link) renewLater(c *conn, uris []string) {
	var err error
	for range renewAttempts {
		select {
		case <-c.done:
			return
		case <-l.closed:
			return
		case <-time.After(renewEvery):
		}
		var left []string
		for _, uri := range uris {
			if !l.subs.has(uri) {
				continue // unsubscribed meanwhile
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = l.request(ctx, c, mcp.MethodResourcesSubscribe, uri)
			cancel()
			if err != nil {
				left = append(left, uri)
				continue
			}
			l.subs.notify(uri)
		}
		if uris = left; len(uris) == 0 {
			return
		}
	}
	l.o.Log.Warn("host: resubscribe", "host", l.t.Name, "uris", uris, "err", err)
}

// Subscribe subscribes to a resource of the host's tmux-mcp (uri as that
// one names it). The channel gets a signal when the host says the
// resource changed, and when the connection to the host ends or returns
// (reading the resource then says what it is); stop ends the subscription.
func (r *Router) Subscribe(ctx context.Context, host, uri string) (<-chan struct{}, func(), error) {
	l, ok := r.links[host]
	if !ok {
		return nil, nil, &hostError{msg: fmt.Sprintf("%v %q: the hosts are %v", ErrUnknownHost, host, r.names), kind: ErrUnknownHost}
	}
	c, err := l.conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	ch := make(chan struct{}, 1)
	l.subs.mu.Lock()
	first := len(l.subs.byURI[uri]) == 0
	if first {
		// Subscribe remotely before the entry exists: a refusal (no such
		// pane) leaves nothing behind.
		l.subs.mu.Unlock()
		if err := l.request(ctx, c, mcp.MethodResourcesSubscribe, uri); err != nil {
			return nil, nil, fmt.Errorf("host %s: %w", host, err)
		}
		l.subs.mu.Lock()
	}
	if l.subs.byURI[uri] == nil {
		l.subs.byURI[uri] = map[chan struct{}]bool{}
	}
	l.subs.byURI[uri][ch] = true
	l.subs.mu.Unlock()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			l.subs.mu.Lock()
			delete(l.subs.byURI[uri], ch)
			last := len(l.subs.byURI[uri]) == 0
			if last {
				delete(l.subs.byURI, uri)
			}
			l.subs.mu.Unlock()
			if !last {
				return
			}
			l.mu.Lock()
			c := l.cur
			l.mu.Unlock()
			if c != nil {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = l.request(ctx, c, mcp.MethodResourcesUnsubscribe, uri)
			}
		})
	}
	return ch, stop, nil
}

// request sends resources/subscribe or unsubscribe for uri on the session
// revision the link speaks (mcp-go's Client.Subscribe is deprecated for
// 2026-07-28's listen streams).
func (l *Link) request(ctx context.Context, c *conn, method mcp.MCPMethod, uri string) error {
	res, err := c.c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
		ID: mcp.NewRequestId(string(method) + "-" + strconv.FormatInt(l.pings.Add(1), 10)), Method: string(method),
		Params: map[string]any{"uri": uri}})
	if err != nil {
		return err
	}
	if res.Error != nil {
		return fmt.Errorf("%s: %s", method, res.Error.Message)
	}
	return nil
}
