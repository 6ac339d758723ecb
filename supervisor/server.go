package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/singleflight"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// State is a supervised server's health state.
type State string

// States.
const (
	StateUnknown    State = "unknown"    // not contacted yet
	StateUp         State = "up"         // answering
	StateDown       State = "down"       // dead; started again on the next call unless recovery gave up
	StateRestarting State = "restarting" // dead, a recovery is scheduled or running
	StateClosed     State = "closed"     // supervision ended
)

// Cause classifies why a server died or became unreachable.
type Cause string

// Causes.
const (
	CauseLastSession   Cause = "last_session_gone" // exit-empty: the last session closed
	CauseKilled        Cause = "killed"            // ended by a signal (SIGKILL, SIGTERM, OOM killer)
	CauseCrashed       Cause = "crashed"           // SIGSEGV/SIGABRT or fatal() exit status
	CauseSocketDeleted Cause = "socket_deleted"    // socket file gone, server alive
	CauseFDLivelock    Cause = "fd_livelock"       // near its fd limit and not answering
	CauseHung          Cause = "hung"              // alive, not answering (SIGSTOP, blocked write)
	CauseVersionSkew   Cause = "version_skew"      // client and server binaries differ
	CausePermission    Cause = "permission"        // socket directory or ACL problem
	CauseKillServer    Cause = "kill_server"       // tmux-mcp was asked to kill it
	CauseUnknown       Cause = "unknown"
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
	blocking   chan struct{} // slots for commands that may block inside tmux (DoBlocking)
	serverRate *keyedBuckets
	paneRate   *keyedBuckets
	cache      *captureCache
	flight     singleflight.Group
	// flightWaiters counts captures inside flight.Do (for tests).
	flightWaiters atomic.Int32
	ensureSem     chan struct{} // serialises adopt/start; a channel so waiters keep their deadline
	commands      atomic.Uint64
	cacheHits     atomic.Uint64
	tmuxReads     atomic.Uint64 // captures that reached tmux
	rateLimited   atomic.Uint64
	meter         rateMeter

	mu            sync.Mutex
	state         State
	id            identity
	restarts      int
	lastCause     Cause
	lastDetail    string
	lastDeathAt   time.Time
	retryAt       time.Time // while restarting: when the next attempt runs
	pending       decision  // while restarting or down: the decision in force
	startable     bool      // while down: the next call may start a server
	tracker       *restartTracker
	res           Resources
	warned        map[string]bool
	killRequested bool
	lastStructure time.Time // last %sessions-changed seen on the command connection
	watchers      map[tmux.SessionID]*watcher
	paneSession   map[tmux.PaneID]tmux.SessionID
	paneGen       uint64 // bumped by forgetPanes
	lastReprobe   time.Time
	monitorStop   context.CancelFunc
	monitorDone   chan struct{}
	wake          chan struct{}
}

// identity is what is known of the running server process.
type identity struct {
	pid       int
	startTime uint64 // process start time (clock ticks), against PID reuse
	version   string
	upSince   time.Time
	owned     *tmux.StartedServer // set when tmux-mcp started it with tmux -D
	pidExited <-chan struct{}     // pidfd: closed when the process exits
	stopPidfd context.CancelFunc
	sockIno   uint64 // inode of the socket file when adopted: a new one means a new socket
}

func newServer(cfg Config, sock tmux.Socket, b *bus) (*Server, error) {
	s := &Server{
		cfg: cfg, sock: sock, bus: b, now: time.Now,
		tracer:      otel.Tracer(tracerName),
		inflight:    make(chan struct{}, cfg.MaxInFlight),
		blocking:    make(chan struct{}, maxBlocking),
		state:       StateUnknown,
		startable:   true,
		tracker:     newRestartTracker(cfg.Restart, defaultRestartJitter),
		cache:       newCaptureCache(),
		warned:      map[string]bool{},
		watchers:    map[tmux.SessionID]*watcher{},
		paneSession: map[tmux.PaneID]tmux.SessionID{},
		wake:        make(chan struct{}, 1),
		ensureSem:   make(chan struct{}, 1),
	}
	s.serverRate = newKeyedBuckets(cfg.ServerRate, cfg.ServerBurst, s.now)
	s.paneRate = newKeyedBuckets(cfg.ReadRate, cfg.ReadBurst, s.now)
	c, err := tmux.NewClient(tmux.ClientOptions{
		Binary: cfg.Binary, Socket: sock, Config: cfg.TmuxConfig, Control: !cfg.ExecOnly,
		OnNotify: s.onCommandNotify,
	})
	if err != nil {
		return nil, err
	}
	s.client = c
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

// gate is the health gate in front of every call: nil when the server is
// up (adopting or starting it if needed), a fail-fast error otherwise.
func (s *Server) gate(ctx context.Context) error { return s.gateStart(ctx, true) }

// gateStart is gate; allowStart false never starts a server (it still
// adopts a running one).
func (s *Server) gateStart(ctx context.Context, allowStart bool) error {
	err := s.failFast()
	if errors.Is(err, ErrServerDown) && s.reprobeDue() {
		// Recovery gave up, but a server may answer again (fixed by hand,
		// or started by someone else): adopt it, never start one.
		if aerr := s.readopt(ctx); aerr == nil {
			return nil
		}
	}
	if err != nil || s.State() == StateUp {
		return err
	}
	return s.ensure(ctx, allowStart)
}

// reprobeInterval spaces the checks of a server that recovery gave up on.
const reprobeInterval = 5 * time.Second

func (s *Server) reprobeDue() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.now().Sub(s.lastReprobe) < reprobeInterval {
		return false
	}
	s.lastReprobe = s.now()
	return true
}

// readopt adopts a server that answers on the socket after recovery gave up.
func (s *Server) readopt(ctx context.Context) error {
	select {
	case s.ensureSem <- struct{}{}:
		defer func() { <-s.ensureSem }()
	case <-ctx.Done():
		return ctx.Err()
	}
	cctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	s.client.ForgetServer()
	if err := s.client.Connect(cctx); err != nil {
		return err
	}
	s.mu.Lock()
	s.tracker.reset(s.now())
	s.mu.Unlock()
	return s.adopt(cctx, nil)
}

// failFast returns the error of a call made while the server is being
// recovered, is down for good, or is no longer supervised; nil otherwise.
func (s *Server) failFast() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case StateClosed:
		return ErrClosed
	case StateRestarting:
		return &restartingError{Attempt: s.pending.Attempt, Max: s.pending.Max, RetryIn: max(time.Until(s.retryAt), 0)}
	case StateDown:
		if !s.startable {
			return &serverDownError{Cause: s.lastCause, Reason: firstNonEmpty(s.pending.Reason, s.lastDetail)}
		}
	}
	return nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ensure adopts a running server or, when allowed, starts one, and starts
// the monitor.
func (s *Server) ensure(ctx context.Context, allowStart bool) error {
	select {
	case s.ensureSem <- struct{}{}:
		defer func() { <-s.ensureSem }()
	case <-ctx.Done():
		return queueError("adopt", ctx.Err())
	}
	// The state may have changed while we waited: only a server never
	// contacted, or down and startable, is (re)started here. Recovery after
	// a death belongs to the monitor.
	if s.State() == StateUp {
		return nil
	}
	if err := s.failFast(); err != nil {
		return err
	}
	var owned *tmux.StartedServer
	err := s.client.Connect(ctx)
	if err != nil && (errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrSocketMissing)) && allowStart && !s.cfg.NoStart {
		// Never start a server while the one we knew may be alive with its
		// socket deleted: that orphans it.
		if old := s.identity(); old.pid > 0 && pidAlive(old.pid, old.startTime) {
			return fmt.Errorf("supervisor: server PID %d is alive but its socket %s does not answer: %w",
				old.pid, s.sock.ResolvedPath(), err)
		}
		// A server we never knew may still listen on the deleted path:
		// give it its socket back instead of starting another.
		if pid := listenerPID(s.sock.ResolvedPath()); pid > 0 && errors.Is(err, tmux.ErrSocketMissing) {
			if rerr := s.recreateSocket(ctx, identity{pid: pid}); rerr != nil {
				return fmt.Errorf("supervisor: server PID %d still listens on the deleted socket %s: %w", pid, s.sock.ResolvedPath(), rerr)
			}
			return s.adopt(ctx, nil)
		}
		owned, err = s.client.Exec().StartServer(ctx, tmux.StartOptions{FDLimit: s.cfg.FDLimit})
		if err != nil && !errors.Is(err, tmux.ErrServerRunning) { // lost a start race: adopt the winner
			return fmt.Errorf("supervisor: start server: %w", err)
		}
		s.client.ForgetServer()
		err = s.client.Connect(ctx)
	}
	if err == nil {
		err = s.adopt(ctx, owned)
	}
	if err != nil && owned != nil {
		// A server we started but could not take over would be adopted
		// later as not ours: no restore, no exit status. End it instead.
		syscall.Kill(owned.PID, syscall.SIGKILL) //nolint:errcheck // our own child
	}
	return err
}

// adopt records the identity of the server that now answers, marks it up
// and makes sure the monitor runs.
func (s *Server) adopt(ctx context.Context, owned *tmux.StartedServer) error {
	info, err := s.client.Info(ctx)
	if err != nil {
		return err
	}
	start, _ := processStartTime(info.PID)
	pctx, stop := context.WithCancel(context.Background())
	exited, err := pidfdWait(pctx, info.PID)
	if err != nil {
		stop()
		exited = nil // no pidfd: probes and the control connection remain
	}
	s.mu.Lock()
	if s.state == StateClosed {
		// Close won the race: undo what this call opened.
		s.mu.Unlock()
		stop()
		s.client.Close() //nolint:errcheck // supervision has ended
		return ErrClosed
	}
	if s.id.stopPidfd != nil {
		s.id.stopPidfd()
	}
	s.id = identity{pid: info.PID, startTime: start, version: info.Version.Raw, upSince: s.now(),
		owned: owned, pidExited: exited, stopPidfd: stop, sockIno: socketInode(s.sock.ResolvedPath())}
	s.state = StateUp
	s.startable = true
	s.killRequested = false
	s.tracker.up(s.now())
	startMonitor := s.monitorStop == nil
	if startMonitor {
		mctx, cancel := context.WithCancel(context.Background())
		s.monitorStop, s.monitorDone = cancel, make(chan struct{})
		go s.monitor(mctx, s.monitorDone)
	}
	s.mu.Unlock()
	typ := EventServerAdopted
	if owned != nil {
		typ = EventServerStarted
	}
	s.bus.emit(Event{Type: typ, Socket: s.sock, PID: info.PID, Detail: info.Version.Raw})
	return nil
}

func (s *Server) identity() identity {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

func (s *Server) close() error {
	s.mu.Lock()
	s.state = StateClosed
	stop, done := s.monitorStop, s.monitorDone
	if s.id.stopPidfd != nil {
		s.id.stopPidfd()
	}
	watchers := s.watchers
	s.watchers = map[tmux.SessionID]*watcher{}
	s.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	errs := closeWatchers(watchers)
	errs = append(errs, s.client.Close())
	return errors.Join(errs...)
}

// closeWatchers closes watcher connections in parallel: closing one whose
// server is stopped takes seconds, and a server may have many.
func closeWatchers(ws map[tmux.SessionID]*watcher) []error {
	errs := make([]error, 0, len(ws))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := w.ctrl.Close()
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return errs
}

// readOnly lists commands that change nothing a capture could see.
var readOnly = map[string]bool{
	"list-sessions": true, "ls": true, "list-windows": true, "lsw": true, "list-panes": true, "lsp": true,
	"list-clients": true, "lsc": true, "list-buffers": true, "lsb": true, "display-message": true, "display": true,
	"capture-pane": true, "capturep": true, "show-options": true, "show": true, "show-window-options": true,
	"showw": true, "show-environment": true, "showenv": true, "show-hooks": true, "has-session": true, "has": true,
	"show-buffer": true, "showb": true, "list-keys": true, "lsk": true, "list-commands": true, "lscm": true,
	"show-messages": true, "showmsgs": true, "server-info": true, "info": true,
}

// Do runs one tmux command under supervision and returns its stdout: health
// gate, resource gate for commands that create panes, the server's token
// bucket, the in-flight bound, the transport with a deadline, events.
func (s *Server) Do(ctx context.Context, args ...string) ([]byte, error) {
	if len(args) == 0 {
		return nil, errors.New("supervisor: empty tmux command")
	}
	if err := s.gate(ctx); err != nil {
		return nil, err
	}
	if createsPane(args) {
		if err := s.resourceGate(ctx); err != nil {
			return nil, err
		}
	}
	out, err := s.run(ctx, args)
	if !readOnly[args[0]] {
		// Conservative: anything that may change what panes show (or which
		// panes exist) drops cached captures.
		s.cache.touchAll()
		s.forgetPanes()
	}
	if args[0] == "kill-server" && err == nil {
		s.mu.Lock()
		s.killRequested = true
		s.mu.Unlock()
	}
	return out, err
}

// run sends one command through call.
func (s *Server) run(ctx context.Context, args []string) ([]byte, error) {
	return s.call(ctx, args[0], func(ctx context.Context, tr tmux.Transport) ([]byte, error) {
		return tr.Run(ctx, args...)
	})
}

// call is the part of every tmux call below the gates: the server's token
// bucket, the in-flight bound, the deadline, a span, the transport, events.
// name is the tmux command name (never its arguments); f does the work on
// the transport chosen for this call.
func (s *Server) call(ctx context.Context, name string, f func(context.Context, tmux.Transport) ([]byte, error)) ([]byte, error) {
	return s.callOn(ctx, name, nil, f)
}

// callOn is call on transport tr (nil: the one the client picks). A call
// forced onto exec may block inside tmux for as long as its caller allows
// (wait-for): it takes a slot of its own bound instead of one of the
// in-flight slots every other call needs, and its timeout is no sign of
// an ailing server.
func (s *Server) callOn(ctx context.Context, name string, tr tmux.Transport, f func(context.Context, tmux.Transport) ([]byte, error)) ([]byte, error) {
	slots, blocking := s.inflight, tr != nil
	if blocking {
		slots = s.blocking
	}
	if ok, wait := s.serverRate.reserve("server", s.cfg.RateWait); !ok {
		s.rateLimited.Add(1)
		s.bus.emit(Event{Type: EventRateLimited, Socket: s.sock, Detail: "server"})
		return nil, &RateLimitedError{RetryAfter: wait, Scope: "server"}
	} else if wait > 0 {
		if err := sleepCtx(ctx, wait); err != nil {
			return nil, err
		}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.CommandTimeout)
		defer cancel()
	}
	if err := ctx.Err(); err != nil {
		return nil, queueError(name, err)
	}
	select {
	case slots <- struct{}{}:
		defer func() { <-slots }()
	case <-ctx.Done():
		return nil, queueError(name, ctx.Err())
	}
	if tr == nil {
		tr = s.client.Transport()
	}
	ctx, span := s.tracer.Start(ctx, "tmux "+name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("tmux.command", name), attribute.String("tmux.transport", tr.Kind()),
			attribute.String("tmux.socket", s.sock.String())))
	start := s.now()
	out, err := f(ctx, tr)
	dur := s.now().Sub(start)
	class := tmux.ClassName(err)
	span.SetAttributes(attribute.Int("tmux.output_bytes", len(out)), attribute.Bool("tmux.cache_hit", false))
	if err != nil {
		span.SetAttributes(attribute.String("tmux.error_class", class))
		span.SetStatus(codes.Error, class)
	}
	span.End()
	s.commands.Add(1)
	s.meter.add(start)
	s.bus.emit(Event{Type: EventCommand, Socket: s.sock, Command: name, Transport: tr.Kind(), Duration: dur, ErrClass: class})
	if err != nil && (tmux.IsServerDown(err) || (!blocking && errors.Is(err, tmux.ErrTimeout))) {
		s.nudge()
	}
	return out, err
}

// queueError is the error of a call whose context ended before it was sent:
// a timeout for a deadline, the cancellation itself otherwise.
func queueError(name string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("tmux %s: waited for a free slot until the deadline: %w", name, tmux.ErrTimeout)
	}
	return fmt.Errorf("tmux %s: %w", name, err)
}

// query runs a typed query through call.
func query[T any](ctx context.Context, s *Server, name string, f func(context.Context) (T, error)) (T, error) {
	var res T
	if err := s.gate(ctx); err != nil {
		return res, err
	}
	_, err := s.call(ctx, name, func(ctx context.Context, _ tmux.Transport) ([]byte, error) {
		var err error
		res, err = f(ctx)
		return nil, err
	})
	return res, err
}

// nudge asks the monitor to check the server now.
func (s *Server) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// resourceGate refuses commands that create panes when the server is close
// to its fd limit or the system to its PTY maximum. It samples afresh:
// reading /proc/PID/fd costs microseconds, and a stale sample is how a
// server livelocks.
func (s *Server) resourceGate(ctx context.Context) error {
	id := s.identity()
	if id.pid <= 0 {
		return nil
	}
	r, err := s.sample(ctx, id.pid)
	if err != nil {
		return nil // the process may be gone; the call itself will tell
	}
	// Judge what the server will hold once the command ran: the client that
	// carries it (a socket plus the stdin and stdout it passes) and the new
	// pane's pty. A server that reaches its limit livelocks.
	projected := r
	projected.FDs += fdsPerNewPane
	_, refuse := evaluateResources(projected, s.cfg.FDWarn, s.cfg.FDRefuse)
	var exhausted *ResourceExhaustedError
	if errors.As(refuse, &exhausted) && exhausted.Resource == resFDs {
		exhausted.Used = uint64(r.FDs)
	}
	return refuse
}

// fdsPerNewPane is what creating a pane may add to the server's open fds:
// an exec client's socket, stdin and stdout, and the pane's pty master.
const fdsPerNewPane = 4

// sample takes a resource sample of the server process (CPU measured
// since the previous one) and records it.
func (s *Server) sample(ctx context.Context, pid int) (Resources, error) {
	s.mu.Lock()
	prev := s.res
	s.mu.Unlock()
	r, err := sampleResources(ctx, pid, &prev)
	if err == nil {
		s.recordResources(r)
	}
	return r, err
}

// recordResources stores a sample and emits a warning the first time a
// resource crosses the warning threshold (again after it fell below).
func (s *Server) recordResources(r Resources) {
	levels, _ := evaluateResources(r, s.cfg.FDWarn, s.cfg.FDRefuse)
	s.mu.Lock()
	s.res = r
	var emit []resourceLevel
	seen := map[string]bool{}
	for _, l := range levels {
		seen[l.Resource] = true
		if !s.warned[l.Resource] {
			s.warned[l.Resource] = true
			emit = append(emit, l)
		}
	}
	for k := range s.warned {
		if !seen[k] {
			delete(s.warned, k)
		}
	}
	s.mu.Unlock()
	for _, l := range emit {
		s.bus.emit(Event{Type: EventResourceWarning, Socket: s.sock, PID: r.PID, Resource: l.Resource,
			Used: l.Used, Limit: l.Limit, Ratio: l.Ratio})
	}
}

// ListSessions returns the server's sessions (the hidden one left out).
func (s *Server) ListSessions(ctx context.Context) ([]tmux.Session, error) {
	return query(ctx, s, "list-sessions", s.client.ListSessions)
}

// ListWindows returns every window of every session.
func (s *Server) ListWindows(ctx context.Context) ([]tmux.Window, error) {
	return query(ctx, s, "list-windows", s.client.ListWindows)
}

// ListPanes returns every pane of every session.
func (s *Server) ListPanes(ctx context.Context) ([]tmux.Pane, error) {
	s.mu.Lock()
	gen := s.paneGen
	s.mu.Unlock()
	panes, err := query(ctx, s, "list-panes", s.client.ListPanes)
	if err == nil {
		s.learnPanes(panes, gen)
	}
	return panes, err
}

// Info returns the server's identity.
func (s *Server) Info(ctx context.Context) (tmux.ServerInfo, error) {
	return query(ctx, s, "display-message", s.client.Info)
}

// Kill runs kill-server. The death that follows is classified as
// CauseKillServer and not recovered; the next call starts a new server.
func (s *Server) Kill(ctx context.Context) error {
	// Never start a server only to kill it.
	if err := s.gateStart(ctx, false); err != nil {
		return err
	}
	s.mu.Lock()
	s.killRequested = true
	s.mu.Unlock()
	_, err := s.Do(ctx, "kill-server")
	if err != nil && !tmux.IsServerDown(err) {
		s.mu.Lock()
		s.killRequested = false
		s.mu.Unlock()
		return err
	}
	// Wait (within ctx, at most 2s) for the monitor to see the death, so
	// that the next call starts a fresh server instead of racing the dying
	// one.
	deadline := time.Now().Add(2 * time.Second)
	for s.State() == StateUp && time.Now().Before(deadline) {
		s.nudge()
		if err := sleepCtx(ctx, 5*time.Millisecond); err != nil {
			return nil // killed; the caller stopped waiting for the aftermath
		}
	}
	return nil
}
