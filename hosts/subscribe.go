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

// resubscribe renews every subscription on a new connection, and wakes
// the subscribers: what they watch may have changed while the host was
// away.
func (l *Link) resubscribe(c *conn) {
	for _, uri := range l.subs.uris() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := l.request(ctx, c, mcp.MethodResourcesSubscribe, uri); err != nil {
			l.o.Log.Warn("host: resubscribe", "host", l.t.Name, "uri", uri, "err", err)
		}
		cancel()
	}
	l.subs.notify("")
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
