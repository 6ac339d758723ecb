package hosts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Options configures the links to every host.
type Options struct {
	// SSH is the ssh program and any options of the user's (-F a config
	// file); empty: "ssh".
	SSH []string
	// RemoteArgs follow the remote tmux-mcp on its command line ("serve",
	// "--safety", the local tier: a remote host never allows more than
	// this one).
	RemoteArgs []string
	// Version is this binary's version: a remote one that differs is
	// reported (and replaced when Install is set).
	Version string
	// Install lets a link copy this binary (Self) to a host that has no
	// tmux-mcp or another version, when the OS and CPU match.
	Install bool
	Self    string
	// self is Self's SHA-256, read once for every link.
	self *selfBinary
	// PingEvery is how often an idle connection is pinged (5s); a ping
	// that takes longer than PingTimeout (5s) ends the connection.
	PingEvery, PingTimeout time.Duration
	// StartTimeout bounds ssh's connection and the remote tmux-mcp's
	// start (30s).
	StartTimeout time.Duration
	// RetryMin and RetryMax bound the wait between reconnection attempts
	// (200ms, 15s), growing exponentially with jitter (reconnect.go).
	RetryMin, RetryMax time.Duration
	// RetryReadsWithin is how long a read-only call whose connection was
	// lost waits for the host to come back and runs again (30s).
	RetryReadsWithin time.Duration
	Log              *slog.Logger
}

func (o Options) withDefaults() Options {
	if len(o.SSH) == 0 {
		o.SSH = []string{"ssh"}
	}
	if o.PingEvery <= 0 {
		o.PingEvery = 5 * time.Second
	}
	if o.PingTimeout <= 0 {
		o.PingTimeout = 5 * time.Second
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.RetryReadsWithin <= 0 {
		o.RetryReadsWithin = 30 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.self == nil {
		o.self = &selfBinary{path: o.Self}
	}
	return o
}

// reconnectPolicy is the links' reconnect policy under these options.
func (o Options) reconnectPolicy() reconnectPolicy {
	return reconnectPolicy{Min: o.RetryMin, Max: o.RetryMax}
}

// State is a link's connection state.
type State string

const (
	Connecting State = "connecting" // an attempt is under way
	Up         State = "up"
	Down       State = "down" // lost or refused; the next attempt waits for the backoff
	Closed     State = "closed"
)

// Status is what server_health shows of a host.
type Status struct {
	Name   string `json:"name"`
	Target string `json:"target"`
	State  State  `json:"state"`
	// Since is when the state began.
	Since time.Time `json:"since"`
	// RTTMillis is the last ping's round trip through ssh and the remote
	// tmux-mcp.
	RTTMillis float64 `json:"rtt_ms,omitempty"`
	// Connects counts the connections made (1 + reconnections).
	Connects int `json:"connects"`
	// Error is why the last connection ended or the last attempt failed.
	Error string `json:"error,omitempty"`
	// NextAttempt is when a down link tries again.
	NextAttempt   *time.Time `json:"next_attempt,omitempty"`
	RemoteVersion string     `json:"remote_version,omitempty"`
	// Hint says what to do about Error or a version mismatch.
	Hint string `json:"hint,omitempty"`
}

// Link is the connection to one host's tmux-mcp, kept up.
type Link struct {
	t Target
	o Options

	mu      sync.Mutex
	cur     *conn
	st      Status
	changed chan struct{} // closed and replaced at each state change
	closed  chan struct{}
	wg      sync.WaitGroup
	subs    remoteSubs
	pings   atomic.Int64 // numbers this side's own requests: string IDs, never the client's numbers
}

// conn is one ssh process and the MCP client over its stdio.
type conn struct {
	// n numbers the connections of a link (1, 2, ...), from the moment
	// it serves (0 before).
	n      int
	cmd    *exec.Cmd
	c      *client.Client
	done   chan struct{} // closed when ssh has exited
	stderr *tail
	once   sync.Once
	err    error // why it ended: set once, read after done closes
}

// setErr records why the connection ended, the first reason only.
func (c *conn) setErr(err error) { c.once.Do(func() { c.err = err }) }

// ended reports whether ssh has exited.
func (c *conn) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func newLink(t Target, o Options) *Link {
	l := &Link{t: t, o: o, changed: make(chan struct{}), closed: make(chan struct{}),
		subs: remoteSubs{byURI: map[string]map[chan struct{}]bool{}}}
	l.st = Status{Name: t.Name, Target: t.String(), State: Connecting, Since: time.Now()}
	return l
}

// start keeps the link up until close.
func (l *Link) start() {
	l.wg.Add(1)
	go l.run()
}

// run keeps the link up: it connects, serves, and when the connection
// ends carries out what the reconnect policy decides (reconnect.go).
func (l *Link) run() {
	defer l.wg.Done()
	r := newReconnects(l.o.reconnectPolicy(), reconnectJitter)
	for {
		l.setState(Connecting, nil, nil)
		c, err := l.connect()
		if err == nil {
			r.up(time.Now())
			l.serve(c)
			select {
			case <-l.closed:
				return
			default:
			}
			err = c.err
		}
		d := r.down(time.Now(), err)
		next := time.Now().Add(d.Wait)
		l.setState(Down, err, &next)
		// The same failure again is not news: it is logged once.
		level := slog.LevelWarn
		if d.Repeat {
			level = slog.LevelDebug
		}
		l.o.Log.Log(context.Background(), level, "host down", "host", l.t.Name, "err", err, "retry_in", d.Wait.Round(time.Millisecond), "why", d.Reason)
		select {
		case <-l.closed:
			return
		case <-time.After(d.Wait):
		}
	}
}

// serve holds a connection until it ends: it pings it and reports it up.
func (l *Link) serve(c *conn) {
	l.resubscribe(c)
	l.mu.Lock()
	l.cur = c
	l.st.Connects++
	c.n = l.st.Connects
	l.mu.Unlock()
	l.setState(Up, nil, nil)
	l.o.Log.Info("host up", "host", l.t.Name, "target", l.t.String(), "rtt_ms", l.Status().RTTMillis)
	tick := time.NewTicker(l.o.PingEvery)
	defer tick.Stop()
	for {
		select {
		case <-l.closed:
			c.end(errors.New("closed"))
			<-c.done
			return
		case <-c.done:
			l.mu.Lock()
			l.cur = nil
			l.mu.Unlock()
			l.subs.notify("")
			return
		case <-tick.C:
			if err := l.ping(c); err != nil {
				c.end(fmt.Errorf("ping: %w", err))
			}
		}
	}
}

// ping measures a round trip and records it.
func (l *Link) ping(c *conn) error {
	ctx, cancel := context.WithTimeout(context.Background(), l.o.PingTimeout)
	defer cancel()
	start := time.Now()
	// A ping request on the session revision (mcp-go's Client.Ping sends
	// nothing on 2026-07-28, and is deprecated for it).
	res, err := c.c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
		ID: mcp.NewRequestId("ping-" + strconv.FormatInt(l.pings.Add(1), 10)), Method: string(mcp.MethodPing)})
	if err != nil {
		return err
	}
	if res.Error != nil {
		return fmt.Errorf("ping: %s", res.Error.Message)
	}
	rtt := float64(time.Since(start).Microseconds()) / 1000
	l.mu.Lock()
	l.st.RTTMillis = rtt
	l.mu.Unlock()
	return nil
}

func (l *Link) setState(s State, err error, next *time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.st.State == Closed {
		return
	}
	if l.st.State != s {
		l.st.Since = time.Now()
	}
	l.st.State = s
	l.st.NextAttempt = next
	if err != nil {
		l.st.Error = err.Error()
		l.st.Hint = hintFor(err, l.t, l.o)
	} else if s == Up {
		l.st.Error, l.st.Hint = "", versionHint(l.st.RemoteVersion, l.o)
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

// Status returns the link's state now.
func (l *Link) Status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st
}

// conn returns the connection to call through: at once when up, after
// the attempt under way when connecting, never when down (ErrHostDown at
// once: the caller should not wait for a backoff it cannot see).
func (l *Link) conn(ctx context.Context) (*conn, error) { return l.await(ctx, false, nil) }

// awaitNext waits until the link is up (through down and connecting) on a
// connection other than lost, and returns it, or ctx's error. lost is the
// connection a call just lost: until the link has noticed its end, it is
// still the link's current one, and a call made again on it fails at once
// (a read retried so spun, hundreds of times in a few milliseconds).
func (l *Link) awaitNext(ctx context.Context, lost *conn) (*conn, error) {
	return l.await(ctx, true, lost)
}

// await waits for the link to be up on a live connection other than not;
// throughDown: a link that is down is waited for too, else it fails at
// once.
func (l *Link) await(ctx context.Context, throughDown bool, not *conn) (*conn, error) {
	for {
		l.mu.Lock()
		c, st, ch := l.cur, l.st, l.changed
		l.mu.Unlock()
		switch {
		case st.State == Closed || st.State == Down && !throughDown:
			return nil, l.downError(st)
		case st.State == Up && c != nil && c != not && !c.ended():
			return c, nil
		case st.State == Up && c != nil && c == not:
			// The lost connection is still the current one: the link
			// reports it down (a state change) once it sees it end.
		case st.State == Up && c != nil:
			// It has ended, and the link has not noticed yet.
			if !throughDown {
				return nil, l.downError(Status{Name: st.Name, Target: st.Target, State: Down, Error: "the connection has just ended"})
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: host %s: still %s: %w", ErrHostDown, l.t.Name, st.State, ctx.Err())
		}
	}
}

func (l *Link) downError(st Status) error {
	msg := fmt.Sprintf("%v: host %s (%s) is %s", ErrHostDown, l.t.Name, l.t.String(), st.State)
	if st.Error != "" {
		msg += ": " + st.Error
	}
	if st.NextAttempt != nil {
		msg += fmt.Sprintf("; next attempt in %s", time.Until(*st.NextAttempt).Round(100*time.Millisecond))
	}
	if st.Hint != "" {
		msg += ". " + st.Hint
	}
	return &hostError{msg: msg, kind: ErrHostDown}
}

// hostError is an error that matches its kind with errors.Is but reads
// as its own message.
type hostError struct {
	msg  string
	kind error
}

func (e *hostError) Error() string        { return e.msg }
func (e *hostError) Is(target error) bool { return target == e.kind }

// close ends the link and its connection.
func (l *Link) close() {
	l.mu.Lock()
	select {
	case <-l.closed:
		l.mu.Unlock()
		return
	default:
	}
	close(l.closed)
	if l.cur != nil {
		l.cur.end(errors.New("closed"))
	}
	l.mu.Unlock()
	l.wg.Wait()
	l.setState(Closed, nil, nil)
}
