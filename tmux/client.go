package tmux

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// ClientOptions configures a Client.
type ClientOptions struct {
	Binary string // tmux binary; "tmux" when empty
	Socket Socket
	Config string // -f for commands that may start a server; "" for tmux's default
	// PassEnv names variables that tmux processes started for this client
	// (a server among them) get besides ServerEnvNames; see Exec.PassEnv.
	PassEnv []string
	// Control opens the persistent control-mode connection in Connect.
	// Without it every command goes over exec.
	Control bool
	// OnNotify receives the command connection's notifications (window and
	// session changes; no pane output, the connection is no-output). It runs
	// on the reader goroutine and must not block.
	OnNotify func(Notification)
}

// Client talks to one tmux server over control mode when that connection is
// up and over exec otherwise. It is safe for concurrent use.
type Client struct {
	opts ClientOptions
	exec *Exec

	mu      sync.Mutex
	ctrl    *Control
	version Version // the server's, once known

}

// NewClient returns a Client for opts.Socket. It does not contact the server.
func NewClient(opts ClientOptions) (*Client, error) {
	if err := opts.Socket.Validate(); err != nil {
		return nil, err
	}
	c := &Client{opts: opts, exec: &Exec{Binary: opts.Binary, Socket: opts.Socket, Config: opts.Config, PassEnv: opts.PassEnv}}
	// Never start a server by accident: with a 3.2+ client every command
	// carries -N (ClientFlags). (tmux -V contacts no server.)
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	if v, err := c.ClientVersion(ctx); err == nil && v.Capabilities().ClientFlags {
		c.exec.SetNoStart(true)
	}
	return c, nil
}

// Socket returns the server this client talks to.
func (c *Client) Socket() Socket { return c.opts.Socket }

// Exec returns the exec transport, for commands that must not go over
// control mode.
func (c *Client) Exec() *Exec { return c.exec }

// Connect learns the server's version and, when control mode is on, makes
// sure the hidden session exists and attaches the command connection. It
// never starts a server: with none running it returns ErrNoServer or
// ErrSocketMissing. Calling it again after the connection was lost dials a
// new one.
func (c *Client) Connect(ctx context.Context) error {
	v, err := c.ServerVersion(ctx)
	if err != nil {
		return err
	}
	if !c.opts.Control {
		return nil
	}
	c.mu.Lock()
	old := c.ctrl
	c.mu.Unlock()
	if old != nil && old.Err() == nil {
		return nil
	}
	if err := c.ensureHidden(ctx); err != nil {
		return err
	}
	flags := ""
	if v.Capabilities().ClientFlags {
		flags = "no-output,ignore-size"
	}
	ctrl, err := DialControl(ctx, ControlOptions{
		Exec: c.exec, Target: "=" + HiddenSession, Flags: flags, OnNotify: c.opts.OnNotify,
		NoStartServer: v.Capabilities().ClientFlags,
	})
	if err != nil {
		return fmt.Errorf("tmux: attach control client: %w", err)
	}
	c.mu.Lock()
	c.ctrl = ctrl
	c.mu.Unlock()
	if old != nil {
		old.Close() //nolint:errcheck // already dead
	}
	return nil
}

// ensureHidden creates the hidden session unless it exists. new-session could
// start a server, so it first checks that one answers.
func (c *Client) ensureHidden(ctx context.Context) error {
	_, err := c.exec.Run(ctx, "has-session", "-t", "="+HiddenSession)
	if err == nil {
		return nil
	}
	if !errors.Is(err, ErrSessionNotFound) {
		return err
	}
	_, err = c.exec.Run(ctx, "new-session", "-d", "-s", HiddenSession, "-x", "80", "-y", "24", "exec tail -f /dev/null")
	if errors.Is(err, ErrDuplicateSession) {
		return nil // another tmux-mcp made it first
	}
	return err
}

// WatchOptions configures a watcher connection.
type WatchOptions struct {
	// OnNotify receives every notification, in order, on the reader
	// goroutine, before any later command reply is handed back: a command
	// answered on this connection was answered after every notification
	// queued before it. It must not block and must not call Run.
	OnNotify func(Notification)
	// PauseAfter is the pause-after age: a pane whose queued output gets
	// this old is paused and its output dropped until it is continued
	// (30s; whole seconds, at least 1).
	PauseAfter time.Duration
	// ManualContinue leaves paused panes paused; by default a paused pane
	// is continued at once (refresh-client -A '%N:continue').
	ManualContinue bool
}

// ErrNoWatch matches Watch and CanWatch errors for a server on which no
// watcher connection may be opened: before 3.2 (no control client flags)
// and 3.2a, which a control client receiving output can crash
// (Capabilities.DeadPaneOutputCrash).
var ErrNoWatch = errors.New("tmux: no watcher connections on this tmux")

// CanWatch returns nil when Watch may open a watcher connection to the
// server, else an error matching ErrNoWatch (or why the version could not
// be read). The version is cached: after the first call it costs no
// round trip.
func (c *Client) CanWatch(ctx context.Context) error {
	v, err := c.ServerVersion(ctx)
	if err != nil {
		return err
	}
	caps := v.Capabilities()
	switch {
	case !caps.ClientFlags:
		return fmt.Errorf("%w: tmux %s has no control client flags (3.2 or later needed)", ErrNoWatch, v.Raw)
	case caps.DeadPaneOutputCrash:
		return fmt.Errorf("%w: tmux %s crashes when a remain-on-exit pane dies while a control client receives its output (fixed in 3.3)", ErrNoWatch, v.Raw)
	}
	return nil
}

// Watch opens a watcher connection: a control client attached to session
// that delivers %output (as %extended-output, with pause-after) for every
// pane of the session's windows to opts.OnNotify. A paused pane's output
// is dropped while it is paused, so OnNotify sees %pause and %continue and
// must treat the pane as changed. It never starts a server. It needs tmux
// 3.3 or later; on older servers it fails with an error matching
// ErrNoWatch (see CanWatch).
func (c *Client) Watch(ctx context.Context, session SessionID, opts WatchOptions) (*Control, error) {
	if err := c.CanWatch(ctx); err != nil {
		return nil, err
	}
	pause := int(opts.PauseAfter / time.Second)
	if opts.PauseAfter <= 0 {
		pause = 30
	}
	pause = max(pause, 1)
	return DialControl(ctx, ControlOptions{
		Exec: c.exec, Target: string(session), Flags: "ignore-size,pause-after=" + strconv.Itoa(pause),
		AutoContinue: !opts.ManualContinue, OnNotify: opts.OnNotify, NoStartServer: true,
	})
}

// Control returns the command connection, or nil when it is down or off.
func (c *Client) Control() *Control {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctrl == nil || c.ctrl.Err() != nil {
		return nil
	}
	return c.ctrl
}

// LastControlError returns why the command connection ended (a
// *ConnLostError), or nil while it is up or was never opened.
func (c *Client) LastControlError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctrl == nil {
		return nil
	}
	return c.ctrl.Err()
}

// Transport returns the transport the next command would use.
func (c *Client) Transport() Transport {
	if ctrl := c.Control(); ctrl != nil {
		return ctrl
	}
	return c.exec
}

// Run sends one command over control mode when it is up, else over exec. A
// command whose control connection is lost while it is in flight is not
// retried (it may have run); the error matches ErrConnectionLost.
func (c *Client) Run(ctx context.Context, args ...string) ([]byte, error) {
	return c.Transport().Run(ctx, args...)
}

// Close closes the control connection. The tmux server keeps running.
func (c *Client) Close() error {
	c.mu.Lock()
	ctrl := c.ctrl
	c.ctrl = nil
	c.mu.Unlock()
	if ctrl != nil {
		return ctrl.Close()
	}
	return nil
}

// ClientVersion returns the version of the tmux binary (tmux -V).
func (c *Client) ClientVersion(ctx context.Context) (Version, error) {
	return c.exec.BinaryVersion(ctx)
}

// ServerVersion returns the running server's #{version}, cached after the
// first answer.
func (c *Client) ServerVersion(ctx context.Context) (Version, error) {
	c.mu.Lock()
	v := c.version
	c.mu.Unlock()
	if v.Raw != "" {
		return v, nil
	}
	out, err := c.exec.Run(ctx, "display-message", "-p", "#{version}")
	if err != nil {
		return Version{}, err
	}
	if v, err = ParseVersion(string(out)); err != nil {
		return Version{}, err
	}
	c.exec.setLayout(v)
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
	return v, nil
}

// ForgetServer drops what the client knows about the running server (its
// version), after the server was replaced.
func (c *Client) ForgetServer() {
	c.mu.Lock()
	c.version = Version{}
	c.mu.Unlock()
}
