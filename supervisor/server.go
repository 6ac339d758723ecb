package supervisor

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/supervisor/ratelimit"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// State is a supervised server's health state.
type State string

// States.
const (
	StateUnknown    State = "unknown"    // not contacted yet
	StateUp         State = "up"         // answering
	StateDown       State = "down"       // dead; started again on the next call unless the restart policy gave up
	StateRestarting State = "restarting" // dead, a restart is scheduled or running
	StateClosed     State = "closed"     // supervision ended
)

const tracerName = "github.com/tmux-mcp/tmux-mcp/supervisor"

// Server is one supervised tmux server. Its methods are safe for
// concurrent use.
type Server struct {
	cfg    Config
	sock   tmux.Socket
	client *tmux.Client
	bus    *bus
	tracer trace.Tracer
	now    func() time.Time

	inflight   chan struct{}
	blocking   chan struct{} // slots for commands that may block inside tmux (doBlocking)
	waiting    atomic.Int64  // doBlocking commands inside tmux now (their client connected)
	serverRate *ratelimit.Keyed
	paneRate   *ratelimit.Keyed
	fresh      *capture.Freshness
	flight     capture.Coalescer[flightKey, Capture]
	// capturing counts Capture calls in progress (for tests).
	capturing atomic.Int32
	// lookups counts Supervisor.server calls on this server in progress.
	lookups atomic.Int32
	// restoreWaiters counts calls waiting for a restore (for tests).
	restoreWaiters atomic.Int32
	// life ends when supervision ends: restores started by a call (not
	// by the monitor) run under it; restores counts them.
	life        context.Context
	endLife     context.CancelFunc
	restores    sync.WaitGroup
	ensureSem   chan struct{} // serialises adopt/start; a channel so waiters keep their deadline
	commands    atomic.Uint64
	cacheHits   atomic.Uint64
	tmuxReads   atomic.Uint64 // captures that reached tmux
	rateLimited atomic.Uint64
	meter       rateMeter

	// testProbeHook, when set (tests only, under mu), receives every
	// liveness probe of the live server and the hang detector's verdict.
	testProbeHook func(death.Liveness, death.Verdict)

	mu            sync.Mutex
	state         State
	id            identity
	restarts      int
	lastCause     death.Cause
	lastDetail    string
	lastDeathAt   time.Time
	retryAt       time.Time      // while restarting: when the next attempt runs
	pending       death.Decision // while restarting or down: the death.Decision in force
	startable     bool           // while down: the next call may start a server
	tracker       *death.Tracker
	res           proc.Resources
	warned        map[string]bool
	killRequested bool
	// killSent: a kill-server of ours was answered and the death is not
	// seen yet (awaitKilled).
	killSent      bool
	lastStructure time.Time // last %sessions-changed seen on the command connection
	lastReprobe   time.Time
	// restore is the restore in progress, if any (restoregate.go).
	restore     restoreRun
	monitorStop context.CancelFunc
	monitorDone chan struct{}
	wake        chan struct{}
}

// identity is what is known of the running server process.
type identity struct {
	pid       int
	startTime uint64 // process start time (clock ticks), against PID reuse
	version   string
	upSince   time.Time
	owned     *tmux.StartedServer // set when tmux-mcp started it with tmux -D
	pidExited <-chan struct{}     // watchExit: closed when the process exits
	stopPidfd context.CancelFunc
	sockIno   uint64 // inode of the socket file when adopted: a new one means a new socket
}

func newServer(cfg Config, sock tmux.Socket, b *bus) (*Server, error) {
	s := &Server{
		cfg: cfg, sock: sock, bus: b, now: time.Now,
		tracer:    otel.Tracer(tracerName),
		inflight:  make(chan struct{}, cfg.MaxInFlight),
		blocking:  make(chan struct{}, maxBlocking),
		state:     StateUnknown,
		startable: true,
		tracker:   death.NewTracker(cfg.Restart, death.DefaultJitter),
		warned:    map[string]bool{},
		wake:      make(chan struct{}, 1),
		ensureSem: make(chan struct{}, 1),
	}
	if _, _, team := s.teamLead(); team {
		// A guest on an agent team's server: the command connection's
		// hidden session would keep it up after its owner ended the rest.
		s.cfg.ExecOnly = true
		cfg = s.cfg
	}
	s.life, s.endLife = context.WithCancel(context.Background())
	s.serverRate = ratelimit.NewKeyed(cfg.ServerRate, cfg.ServerBurst, s.now)
	s.paneRate = ratelimit.NewKeyed(cfg.ReadRate, cfg.ReadBurst, s.now)
	c, err := tmux.NewClient(tmux.ClientOptions{
		Binary: cfg.Binary, Socket: sock, Config: cfg.TmuxConfig, PassEnv: cfg.PassEnv, Control: !cfg.ExecOnly,
		OnNotify: s.onCommandNotify,
	})
	if err != nil {
		return nil, err
	}
	s.client = c
	s.fresh = capture.New(capture.Options{
		CommandTimeout: cfg.CommandTimeout, ExecOnly: cfg.ExecOnly, MaxWatchers: cfg.MaxWatchers,
		PauseAfter: cfg.PauseAfter, ManualContinue: cfg.manualContinue, Slots: s.inflight, Now: s.now,
		PipeRun: func(ctx context.Context, args ...string) ([]byte, error) {
			if err := s.gate(ctx); err != nil {
				return nil, err
			}
			return s.run(ctx, args)
		},
		OnBarrier: func(transport string, d time.Duration, err error) {
			s.bus.emit(Event{Type: EventBarrier, Socket: s.sock, Transport: transport, Duration: d, ErrClass: tmux.ClassName(err)})
		},
		OnStructure: func(notification string) {
			s.bus.emit(Event{Type: EventStructure, Socket: s.sock, Notification: notification})
		},
	}, c)
	return s, nil
}

// Socket returns the socket this server is supervised on.
func (s *Server) Socket() tmux.Socket { return s.sock }

// State returns the server's health state.
func (s *Server) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

func (s *Server) identity() identity {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}
