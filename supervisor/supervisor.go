package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Config configures a Supervisor. Zero fields take the defaults documented
// on each field; [Config.withDefaults] fills them in.
type Config struct {
	// Binary is the tmux binary ("tmux").
	Binary string
	// DefaultSocket is the server used when a call names none: a dedicated
	// -L tmux-mcp server unless configured. The user's default server is
	// never touched unless it is named here.
	DefaultSocket tmux.Socket
	// TmuxConfig is passed as -f to servers tmux-mcp starts ("" for tmux's
	// own default; tests use /dev/null).
	TmuxConfig string
	// PassEnv names the variables of tmux-mcp's environment that servers
	// it starts (and so their panes) inherit besides tmux.ServerEnvNames:
	// names, or NAME* prefixes (tmux.CheckPassEnv).
	PassEnv []string
	// ExecOnly turns control mode off: every command is a subprocess, and
	// the capture cache falls back to a cheap state probe.
	ExecOnly bool
	// NoStart forbids starting servers: only running servers are adopted.
	NoStart bool
	// Observe makes supervision leave no trace on tmux (the readonly
	// tier): it implies NoStart and ExecOnly and drops the Restorer, and a
	// death is recorded but never acted on. See [Config.withDefaults].
	Observe bool
	// MaxServers caps the servers one Supervisor supervises (16): each
	// costs a monitor, a control connection and watchers.
	MaxServers int
	// CommandTimeout is the deadline of one tmux command (5s).
	CommandTimeout time.Duration
	// MaxInFlight bounds the commands in flight per server (32).
	MaxInFlight int

	// ServerRate and ServerBurst bound the commands per second one server
	// receives (200/s, burst 400).
	ServerRate  float64
	ServerBurst int
	// ReadRate and ReadBurst bound captures per pane that reach tmux
	// (20/s, burst 20).
	ReadRate  float64
	ReadBurst int
	// RateWait is how long a rate-limited call may wait for a token before
	// it fails with ErrRateLimited (250ms).
	RateWait time.Duration

	// CaptureLines and CaptureBytes are the default capture caps (500 lines,
	// 256 KiB); MaxCaptureLines and MaxCaptureBytes are the ceilings a
	// request may raise them to (10,000 lines, 4 MiB).
	CaptureLines    int
	CaptureBytes    int
	MaxCaptureLines int
	MaxCaptureBytes int

	// ProbeInterval is how often a server's liveness is probed when no
	// faster signal is available, and resources are sampled (1s).
	ProbeInterval time.Duration
	// FDWarn and FDRefuse are the fractions of the server's fd limit (and of
	// the PTY maximum) at which a warning is emitted and at which new panes,
	// windows and sessions are refused (0.7, 0.9).
	FDWarn, FDRefuse float64
	// FDLimit is the RLIMIT_NOFILE given to servers tmux-mcp starts (0: the
	// highest allowed).
	FDLimit uint64

	// MaxWatchers bounds the watcher connections per server (32), each a
	// control client attached to one session. Captures of panes in
	// sessions beyond it are proven by the state probe, as in exec-only
	// mode, and PaneChanges fails for them with ErrNotWatched. Negative:
	// no watcher connections at all.
	MaxWatchers int

	// PauseAfter is the watcher connections' pause-after age: tmux pauses
	// a pane whose output has waited this long for tmux-mcp to read it,
	// and drops its output until it is continued (30s, whole seconds).
	PauseAfter time.Duration

	// Restart is the restart policy after a server death.
	Restart death.RestartPolicy
	// Restorer, when set, is called after a server was restarted to restore
	// what was lost.
	Restorer Restorer

	// manualContinue leaves panes that tmux paused paused (tests only).
	manualContinue bool
}

// Defaults returns the configuration a zero Config stands for.
func Defaults() Config { return Config{}.withDefaults() }

func (c Config) withDefaults() Config {
	c.Restart = c.Restart.WithDefaults()
	if c.Observe {
		// Observe only, the smallest design that makes the readonly tier
		// read-only for tmux servers as well as for panes: a tool may
		// name any server of the user (socket_name), and every step of
		// supervision that changes a server is off. No server is
		// started (a socket that names none stays without one, and a
		// crashed server is neither started again nor restored from the
		// journal: no Restorer, no restart in died); the exec transport
		// carries every command, so no hidden session is created, no
		// control client attaches and no watcher follows a session (the
		// capture cache falls back to its state probe); a hung server is
		// not terminated, a deleted socket not recreated. A server is
		// read while it answers, and adopted again when it answers after
		// a death. Deciding here rather than per tool keeps the gate in
		// front of every call, the monitor included, from starting one.
		c.NoStart, c.ExecOnly, c.Restorer = true, true, nil
	}
	if c.MaxServers <= 0 {
		c.MaxServers = DefaultMaxServers
	}
	if c.Binary == "" {
		c.Binary = "tmux"
	}
	if c.DefaultSocket == (tmux.Socket{}) {
		c.DefaultSocket = tmux.Socket{Name: "tmux-mcp"}
	}
	if c.CommandTimeout <= 0 {
		c.CommandTimeout = tmux.DefaultTimeout
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 32
	}
	if c.ServerRate <= 0 {
		c.ServerRate = 200
	}
	if c.ServerBurst <= 0 {
		c.ServerBurst = 400
	}
	if c.ReadRate <= 0 {
		c.ReadRate = 20
	}
	if c.ReadBurst <= 0 {
		c.ReadBurst = 20
	}
	if c.RateWait <= 0 {
		c.RateWait = 250 * time.Millisecond
	}
	if c.CaptureLines <= 0 {
		c.CaptureLines = 500
	}
	if c.CaptureBytes <= 0 {
		c.CaptureBytes = 256 << 10
	}
	if c.MaxCaptureLines <= 0 {
		c.MaxCaptureLines = 10000
	}
	if c.MaxCaptureBytes <= 0 {
		c.MaxCaptureBytes = 4 << 20
	}
	if c.ProbeInterval <= 0 {
		c.ProbeInterval = time.Second
	}
	if c.MaxWatchers == 0 {
		c.MaxWatchers = DefaultMaxWatchers
	}
	if c.FDWarn <= 0 {
		c.FDWarn = 0.7
	}
	if c.FDRefuse <= 0 {
		c.FDRefuse = 0.9
	}
	return c
}

// DefaultMaxServers is the default of Config.MaxServers.
const DefaultMaxServers = 16

// DefaultMaxWatchers is the default of Config.MaxWatchers.
const DefaultMaxWatchers = 32

// ErrTooManyServers is returned for a server beyond Config.MaxServers.
var ErrTooManyServers = errors.New("supervisor: too many servers")

// Restorer restores a server's sessions after a restart. The journal
// implements it; the supervisor only calls it.
type Restorer interface {
	Restore(ctx context.Context, srv *Server) error
}

// Supervisor owns one supervised Server per socket.
type Supervisor struct {
	cfg Config
	bus *bus

	mu      sync.Mutex
	servers map[tmux.Socket]*Server
	closed  bool
}

// New returns a Supervisor. It starts nothing until a server is asked for.
func New(cfg Config) *Supervisor {
	return &Supervisor{cfg: cfg.withDefaults(), bus: newBus(), servers: map[tmux.Socket]*Server{}}
}

// Config returns the configuration in force, defaults filled in.
func (s *Supervisor) Config() Config { return s.cfg }

// ErrClosed is returned after Close.
var ErrClosed = errors.New("supervisor: closed")

// Default returns the default server.
func (s *Supervisor) Default(ctx context.Context) (*Server, error) {
	return s.Server(ctx, s.cfg.DefaultSocket)
}

// Server returns the supervised server for sock, creating its supervision
// on first use. The tmux server itself is adopted if it runs, started if it
// does not (unless NoStart), and the call fails only if neither works.
func (s *Supervisor) Server(ctx context.Context, sock tmux.Socket) (*Server, error) {
	return s.server(ctx, sock, true)
}

// Existing is Server for callers that must not start a server: it returns
// the supervised server if it is up, adopts one that runs, and otherwise
// fails with the wire's ErrNoServer or ErrSocketMissing (kill_server uses
// it: starting a server to kill it would be absurd).
func (s *Supervisor) Existing(ctx context.Context, sock tmux.Socket) (*Server, error) {
	return s.server(ctx, sock, false)
}

func (s *Supervisor) server(ctx context.Context, sock tmux.Socket, allowStart bool) (*Server, error) {
	if err := sock.Validate(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	srv, ok := s.servers[sock]
	if !ok {
		if err := s.makeRoomLocked(); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		var err error
		srv, err = newServer(s.cfg, sock, s.bus)
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		s.servers[sock] = srv
	}
	srv.lookups.Add(1) // under mu: makeRoomLocked keeps a server being looked up
	s.mu.Unlock()
	defer srv.lookups.Add(-1)
	// Not the restore gate: each call on the server waits for a restore
	// as its command requires (gateFor).
	if err := srv.healthGate(ctx, allowStart); err != nil {
		return srv, err
	}
	return srv, nil
}

// makeRoomLocked makes room for one more server under MaxServers: it
// forgets servers that were never reached (a socket that named no server
// holds nothing: no monitor, no connection), and fails with
// ErrTooManyServers when the cap is still reached. s.mu is held.
func (s *Supervisor) makeRoomLocked() error {
	if len(s.servers) < s.cfg.MaxServers {
		return nil
	}
	for sock, srv := range s.servers {
		if srv.State() == StateUnknown && srv.lookups.Load() == 0 {
			delete(s.servers, sock)
			srv.close() //nolint:errcheck // never connected
		}
	}
	if len(s.servers) < s.cfg.MaxServers {
		return nil
	}
	return fmt.Errorf("%w: %d supervised already, the cap (MaxServers); name one of them, or raise the cap",
		ErrTooManyServers, len(s.servers))
}

// Servers returns the servers supervised so far.
func (s *Supervisor) Servers() []*Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Server, 0, len(s.servers))
	for _, srv := range s.servers {
		out = append(out, srv)
	}
	return out
}

// Subscribe registers fn for every event from every server and returns a
// function that removes it. fn runs on the emitting goroutine and must not
// block.
func (s *Supervisor) Subscribe(fn func(Event)) (unsubscribe func()) {
	return s.bus.subscribe(fn)
}

// Close stops supervising: watchers and control connections are closed,
// tmux servers keep running.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	s.closed = true
	servers := s.servers
	s.servers = map[tmux.Socket]*Server{}
	s.mu.Unlock()
	var errs []error
	for _, srv := range servers {
		if err := srv.close(); err != nil {
			errs = append(errs, fmt.Errorf("supervisor: close %s: %w", srv.sock, err))
		}
	}
	return errors.Join(errs...)
}

// captureLimits are the capture caps in force.
func (c Config) captureLimits() capture.Limits {
	return capture.Limits{Lines: c.CaptureLines, Bytes: c.CaptureBytes, MaxLines: c.MaxCaptureLines, MaxBytes: c.MaxCaptureBytes}
}
