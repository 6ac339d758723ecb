package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
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

// infoFormat is what Info reads with display-message.
var infoFormat = RecordFormat("pid", "version", "socket_path", "start_time")

// Info returns the server's identity and session count (hidden session not
// counted).
// Over control mode its two commands go out back to back: one round trip.
func (c *Client) Info(ctx context.Context) (ServerInfo, error) {
	display := []string{"display-message", "-p", infoFormat}
	list := []string{"list-sessions", "-F", sessionFormat}
	var out, listed []byte
	var err error
	if ctrl := c.Control(); ctrl != nil {
		outs, errs := ctrl.Pipeline(ctx, display, list)
		if err = errors.Join(errs...); err != nil {
			return ServerInfo{}, err
		}
		out, listed = outs[0], outs[1]
	} else {
		if out, err = c.Run(ctx, display...); err != nil {
			return ServerInfo{}, err
		}
		if listed, err = c.Run(ctx, list...); err != nil {
			return ServerInfo{}, err
		}
	}
	f, err := ParseRecord(out, 4)
	if err != nil {
		return ServerInfo{}, fmt.Errorf("tmux: parse server info: %w", err)
	}
	var info ServerInfo
	info.PID, _ = strconv.Atoi(f[0])
	info.Version, _ = ParseVersion(f[1])
	info.SocketPath = f[2]
	info.StartTime, _ = strconv.ParseInt(f[3], 10, 64)
	sessions, err := parseSessions(listed)
	if err != nil {
		return ServerInfo{}, err
	}
	info.Sessions = len(sessions)
	return info, nil
}

// ListSessions returns every session but the hidden one.
func (c *Client) ListSessions(ctx context.Context) ([]Session, error) {
	out, err := c.Run(ctx, "list-sessions", "-F", sessionFormat)
	if err != nil {
		return nil, err
	}
	return parseSessions(out)
}

// parseSessions parses list-sessions output in sessionFormat.
func parseSessions(out []byte) ([]Session, error) {
	all, err := parse(sessionFields, out)
	return withoutHidden(all, func(s Session) string { return s.Name }), err
}

// ListWindows returns every window of every session but the hidden one.
func (c *Client) ListWindows(ctx context.Context) ([]Window, error) {
	out, err := c.Run(ctx, "list-windows", "-a", "-F", windowFormat)
	if err != nil {
		return nil, err
	}
	all, err := parse(windowFields, out)
	return withoutHidden(all, func(w Window) string { return w.SessionName }), err
}

// ListPanes returns every pane of every session but the hidden one.
func (c *Client) ListPanes(ctx context.Context) ([]Pane, error) {
	out, err := c.Run(ctx, "list-panes", "-a", "-F", paneFormat)
	if err != nil {
		return nil, err
	}
	all, err := parse(paneFields, out)
	return withoutHidden(all, func(p Pane) string { return p.SessionName }), err
}

// Pane returns the pane id as ListPanes would, reading only the panes of
// its window: a call that targets one pane costs tmux that window, not
// every pane of the server. A pane that does not exist, or that is in
// tmux-mcp's hidden session, is an error matching ErrPaneNotFound.
func (c *Client) Pane(ctx context.Context, id PaneID) (Pane, error) {
	out, err := c.Run(ctx, "list-panes", "-t", string(id), "-F", paneFormat)
	if err != nil {
		return Pane{}, err
	}
	panes, err := parse(paneFields, out)
	if err != nil {
		return Pane{}, err
	}
	for _, p := range withoutHidden(panes, func(p Pane) string { return p.SessionName }) {
		if p.ID == id {
			return p, nil
		}
	}
	return Pane{}, fmt.Errorf("%w: %s", ErrPaneNotFound, id)
}

// ListPanesWith is ListPanes reading only the named fields (names of
// the format variables, such as "pane_tty"), and pane_id, session_id and
// session_name: the others are left zero. Each field costs tmux a format
// expansion per pane, and some cost more (pane_current_command and
// pane_current_path read /proc), so a caller asks for what it reads. An
// unknown name is an error.
func (c *Client) ListPanesWith(ctx context.Context, names ...string) ([]Pane, error) {
	want := map[string]bool{"pane_id": true, "session_id": true, "session_name": true}
	for _, n := range names {
		want[n] = true
	}
	var fields []field[Pane]
	for _, f := range paneFields {
		if want[f.name] {
			fields = append(fields, f)
			delete(want, f.name)
		}
	}
	if len(want) > 0 {
		return nil, fmt.Errorf("tmux: list panes: unknown fields %v", slices.Sorted(maps.Keys(want)))
	}
	out, err := c.Run(ctx, "list-panes", "-a", "-F", format(fields))
	if err != nil {
		return nil, err
	}
	all, err := parse(fields, out)
	return withoutHidden(all, func(p Pane) string { return p.SessionName }), err
}

func withoutHidden[T any](all []T, session func(T) string) []T {
	out := all[:0]
	for _, t := range all {
		if session(t) != HiddenSession {
			out = append(out, t)
		}
	}
	return out
}

// CaptureOptions selects what capture-pane returns.
type CaptureOptions struct {
	Target string // pane ID ("%3") or target
	Start  string // -S: "" for the top of the visible screen, "-N" for N lines of history, "-" for all
	End    string // -E: "" for the bottom of the visible screen
	Join   bool   // -J: join wrapped lines
	Escape bool   // -e: keep colour and attribute escapes
}

func (o CaptureOptions) args() []string {
	var a []string
	if o.Start != "" {
		a = append(a, "-S", o.Start)
	}
	if o.End != "" {
		a = append(a, "-E", o.End)
	}
	if o.Join {
		a = append(a, "-J")
	}
	if o.Escape {
		a = append(a, "-e")
	}
	return append(a, "-t", o.Target)
}

// Capture returns a pane's contents, one "\n"-terminated line per row.
// Over control mode on tmux before 3.6, where capture-pane -p leaks the
// capture inside the server (ControlCapture), it captures over its own
// client connection instead (Exec: no process, about as fast as the named
// buffer a control connection would need, which 3.4 and 3.5a could crash
// on, ControlBuffersCrash, and which notifies every control client).
func (c *Client) Capture(ctx context.Context, o CaptureOptions) ([]byte, error) {
	out, _, err := c.CaptureThen(ctx, o, "")
	return out, err
}

// CaptureThen is Capture followed, in the same round trip, by
// display-message -p of the format then for the same target (when then
// is not ""), whose one line it returns apart: the pane's state just
// after the capture. Over one client connection (before 3.6) the two run
// in one command queue, with nothing between them.
func (c *Client) CaptureThen(ctx context.Context, o CaptureOptions, then string) (content, state []byte, err error) {
	args := append([]string{"capture-pane", "-p"}, o.args()...)
	display := []string{"display-message", "-p", "-t", o.Target, then}
	if ctrl := c.Control(); ctrl != nil {
		v, err := c.ServerVersion(ctx)
		if err != nil {
			return nil, nil, err
		}
		if v.Capabilities().ControlCapture {
			if then == "" {
				out, err := ctrl.Run(ctx, args...)
				return out, nil, err
			}
			outs, errs := ctrl.Pipeline(ctx, args, display)
			if errs[0] != nil {
				return nil, nil, errs[0]
			}
			return outs[0], bytes.TrimSuffix(outs[1], []byte("\n")), errs[1]
		}
	}
	if then == "" {
		out, err := c.exec.Run(ctx, args...)
		return out, nil, err
	}
	out, err := c.exec.RunSequence(ctx, args, display)
	if err != nil {
		return nil, nil, err
	}
	// The capture's lines, then the display's one line.
	out = bytes.TrimSuffix(out, []byte("\n"))
	i := bytes.LastIndexByte(out, '\n')
	return out[:i+1], out[i+1:], nil
}
