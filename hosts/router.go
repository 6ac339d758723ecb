package hosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel"
)

// Router holds the links to every configured host.
type Router struct {
	links map[string]*Link
	names []string
}

// NewRouter makes the links; Start connects them.
func NewRouter(targets []Target, o Options) *Router {
	o = o.withDefaults()
	r := &Router{links: map[string]*Link{}}
	for _, t := range targets {
		r.links[t.Name] = newLink(t, o)
		r.names = append(r.names, t.Name)
	}
	slices.Sort(r.names)
	return r
}

// Start connects every host in the background: a host that is down does
// not hold up the others or the local server.
func (r *Router) Start() {
	for _, l := range r.links {
		l.start()
	}
}

// Names returns the configured host names, sorted.
func (r *Router) Names() []string { return slices.Clone(r.names) }

// Call makes a tool call on a host and returns its result as the remote
// tmux-mcp gave it. It fails at once with ErrHostDown when the host is
// not connected, and as soon as the connection is lost during the call,
// unless the call only reads (readOnly: a read-only tool, which may run
// again): then it waits for the host to come back, at most
// RetryReadsWithin, and makes the call again. A wait for a job's end
// (get_job with a timeout) so outlives a dropped connection: the job runs
// on there, and the host's journal keeps it.
func (r *Router) Call(ctx context.Context, host string, req mcp.CallToolRequest, readOnly bool) (*mcp.CallToolResult, error) {
	l, ok := r.links[host]
	if !ok {
		return nil, &hostError{msg: fmt.Sprintf("%v %q: the hosts are %s, %v", ErrUnknownHost, host, Local, r.names), kind: ErrUnknownHost}
	}
	c, err := l.conn(ctx)
	if err != nil {
		return nil, err
	}
	for {
		res, err := l.call(ctx, c, req)
		if err == nil || !readOnly || !errors.Is(err, ErrHostDown) {
			return res, err
		}
		l.o.Log.Info("host: connection lost during a read; waiting for the host to make it again", "host", host, "tool", req.Params.Name,
			"connection", c.n)
		wctx, cancel := context.WithTimeout(ctx, l.o.RetryReadsWithin)
		c, err = l.awaitNext(wctx, c)
		cancel()
		if err != nil {
			return nil, &hostError{kind: ErrHostDown, msg: fmt.Sprintf("%v: host %s: the connection was lost during %s, and the host "+
				"was not back within %s: %v", ErrHostDown, host, req.Params.Name, l.o.RetryReadsWithin, err)}
		}
	}
}

// call makes one tool call over c.
func (l *Link) call(ctx context.Context, c *conn, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	fwd := mcp.CallToolRequest{}
	fwd.Params.Name = req.Params.Name
	fwd.Params.Arguments = req.Params.Arguments
	fwd.Params.Meta = callersMeta(ctx, traceMeta(ctx))
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-cctx.Done():
		}
	}()
	res, err := c.c.CallTool(cctx, fwd)
	if err != nil {
		var te *transport.Error
		if errors.As(err, &te) {
			// The stream ended: ssh is exiting; its end says why.
			select {
			case <-c.done:
			case <-time.After(2 * time.Second):
				c.end(err)
				<-c.done
			}
		}
		select {
		case <-c.done:
			return nil, &hostError{kind: ErrHostDown, msg: fmt.Sprintf("%v: host %s: the connection was lost during %s (%v); "+
				"the call may have run there: look before repeating it", ErrHostDown, l.t.Name, req.Params.Name, c.err)}
		default:
		}
		return nil, fmt.Errorf("host %s: %w", l.t.Name, err)
	}
	return res, nil
}

// ReadResource reads a resource of the host's tmux-mcp (uri as that one
// names it), failing as Call does when the host is down.
func (r *Router) ReadResource(ctx context.Context, host, uri string) (*mcp.ReadResourceResult, error) {
	l, ok := r.links[host]
	if !ok {
		return nil, &hostError{msg: fmt.Sprintf("%v %q: the hosts are %v", ErrUnknownHost, host, r.names), kind: ErrUnknownHost}
	}
	c, err := l.conn(ctx)
	if err != nil {
		return nil, err
	}
	var req mcp.ReadResourceRequest
	req.Params.URI = uri
	req.Params.Meta = traceMeta(ctx)
	res, err := c.c.ReadResource(ctx, req)
	if err != nil {
		select {
		case <-c.done:
			return nil, &hostError{kind: ErrHostDown, msg: fmt.Sprintf("%v: host %s: the connection was lost reading %s (%v)", ErrHostDown, host, uri, c.err)}
		default:
		}
		return nil, fmt.Errorf("host %s: %w", host, err)
	}
	return res, nil
}

// traceMeta carries the caller's trace context to the remote tmux-mcp in
// _meta (traceparent, tracestate, baggage), which joins the trace.
func traceMeta(ctx context.Context) *mcp.Meta {
	m := &mcp.Meta{AdditionalFields: map[string]any{}}
	otel.GetTextMapPropagator().Inject(ctx, metaCarrier(m.AdditionalFields))
	if len(m.AdditionalFields) == 0 {
		return nil
	}
	return m
}

type metaCarrier map[string]any

func (c metaCarrier) Get(key string) string {
	v, _ := c[key].(string)
	return v
}
func (c metaCarrier) Set(key, value string) { c[key] = value }
func (c metaCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// Health is a host's status with its remote supervisor's health.
type Health struct {
	Status
	// Remote is the remote tmux-mcp's server_health of its default
	// server, when the host is up.
	Remote json.RawMessage `json:"remote,omitempty"`
}

// Health returns every host's status, asking each connected one for its
// server_health (at most wait each, all at once).
func (r *Router) Health(ctx context.Context, wait time.Duration) []Health {
	out := make([]Health, len(r.names))
	var wg sync.WaitGroup
	for i, name := range r.names {
		l := r.links[name]
		out[i].Status = l.Status()
		if out[i].State != Up {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			hctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			var req mcp.CallToolRequest
			req.Params.Name = "server_health"
			res, err := r.Call(hctx, name, req, false)
			switch {
			case err != nil:
				out[i].Error = "server_health: " + err.Error()
			case res.IsError:
				out[i].Error = "server_health: error result"
			default:
				out[i].Remote, _ = json.Marshal(res.StructuredContent)
			}
		}()
	}
	wg.Wait()
	return out
}

// Close ends every link.
func (r *Router) Close() error {
	var wg sync.WaitGroup
	for _, l := range r.links {
		wg.Add(1)
		go func() { defer wg.Done(); l.close() }()
	}
	wg.Wait()
	return nil
}

// IsDown reports whether err is a host's being unreachable.
func IsDown(err error) bool { return errors.Is(err, ErrHostDown) }
