package hosts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
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

// sshArgs is the ssh command line that runs remote on the host.
func (l *Link) sshArgs(remote string) []string {
	args := append([]string{}, l.o.SSH[1:]...)
	args = append(args, "-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3")
	if l.t.Port != 0 {
		args = append(args, "-p", strconv.Itoa(l.t.Port))
	}
	if l.t.User != "" {
		args = append(args, "-l", l.t.User)
	}
	return append(args, l.t.Host, remote)
}

// remoteCommand is the shell command line the host runs: the target's own
// command, or tmux-mcp from the PATH or from the install cache, checked
// before it runs (cache.go). The user's login shell parses it first (sh,
// bash, zsh, fish, tcsh...): shellquote's words read the same in each,
// and neither the script nor tmux-mcp's arguments hold what a csh would
// not take ("!", newline).
func (l *Link) remoteCommand() string {
	args := make([]string, len(l.o.RemoteArgs))
	for i, a := range l.o.RemoteArgs {
		args[i] = shellquote.Quote(a)
	}
	if l.t.Command != "" {
		return l.t.Command + " " + strings.Join(args, " ")
	}
	sum, _ := l.o.self.sha256() // unknown: the cache is refused
	return "sh -c " + shellquote.Quote(startScript(l.o.Install, sum)) + " tmux-mcp " + strings.Join(args, " ")
}

// connect starts ssh and initializes MCP over it, installing tmux-mcp
// first when it is missing or another version and that is allowed.
func (l *Link) connect() (*conn, error) {
	c, ver, err := l.dial()
	if err != nil && l.o.Install && (errors.Is(err, errNotInstalled) || errors.Is(err, errOtherBuild)) {
		if ierr := l.install(); ierr != nil {
			return nil, fmt.Errorf("%w; installing it: %w", err, ierr)
		}
		c, ver, err = l.dial()
	} else if err == nil && l.o.Install && l.o.Version != "" && ver != l.o.Version {
		c.end(errors.New("replaced by this version"))
		<-c.done
		if ierr := l.install(); ierr != nil {
			return nil, fmt.Errorf("remote tmux-mcp %s, this one %s; installing this one: %w", ver, l.o.Version, ierr)
		}
		c, ver, err = l.dial()
	}
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.st.RemoteVersion = ver
	l.mu.Unlock()
	if err := l.ping(c); err != nil {
		c.end(fmt.Errorf("first ping: %w", err))
		<-c.done
		return nil, c.err
	}
	return c, nil
}

var errNotInstalled = errors.New("tmux-mcp is not installed there")

// dial runs ssh with the remote tmux-mcp and initializes MCP.
func (l *Link) dial() (*conn, string, error) {
	cmd := exec.Command(l.o.SSH[0], l.sshArgs(l.remoteCommand())...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	c := &conn{cmd: cmd, done: make(chan struct{}), stderr: &tail{max: 4096}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("start %s: %w", l.o.SSH[0], err)
	}
	go func() {
		werr := cmd.Wait()
		c.setErr(exitError(werr, c.stderr.String()))
		close(c.done)
	}()
	tr := transport.NewIO(stdout, stdin, nil)
	c.c = client.NewClient(tr)
	c.c.OnNotification(l.onNotification)
	ctx, cancel := context.WithTimeout(context.Background(), l.o.StartTimeout)
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := c.c.Start(ctx); err != nil {
		c.end(err)
		<-c.done
		return nil, "", c.err
	}
	var init mcp.InitializeRequest
	// The session revision: a connection that stays open, whose ping is
	// a real round trip (2026-07-28 dropped ping; its stateless core has
	// no session to watch).
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "tmux-mcp-hop", Version: l.o.Version}
	res, err := c.c.Initialize(ctx, init)
	if err != nil {
		// ssh's exit says more than a closed stream: let it come first.
		select {
		case <-c.done:
		case <-time.After(2 * time.Second):
			c.end(fmt.Errorf("initialize: %w", err))
			<-c.done
		}
		if r := refusal(c.err); r != nil {
			return nil, "", r
		}
		if ee := c.err; ee != nil && strings.Contains(ee.Error(), "exit status 127") {
			return nil, "", fmt.Errorf("%w: %w", errNotInstalled, ee)
		}
		return nil, "", c.err
	}
	return c, res.ServerInfo.Version, nil
}

// end stops the connection: ssh is killed (its remote side sees the
// connection close, and the remote tmux-mcp its stdin end).
func (c *conn) end(why error) {
	c.setErr(why)
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
	}
	_ = c.c.Close()
}

// exitError says how ssh ended, with the end of what it printed.
func exitError(err error, stderr string) error {
	msg := "ssh exited"
	if err != nil {
		msg = "ssh: " + err.Error()
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		// The remote tmux-mcp's own informational log says nothing of
		// why the connection ended.
		if l != "" && !strings.Contains(l, " level=INFO ") && !strings.Contains(l, " level=DEBUG ") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 0 {
		if len(lines) > 3 {
			lines = lines[len(lines)-3:]
		}
		msg += ": " + strings.Join(lines, " / ")
	}
	return errors.New(msg)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
