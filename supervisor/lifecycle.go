package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"go.opentelemetry.io/otel/attribute"
)

// gate is the health gate in front of every call: nil when the server is
// up (adopting or starting it if needed) and not being restored, a
// fail-fast error otherwise.
func (s *Server) gate(ctx context.Context) error { return s.gateStart(ctx, true) }

// gateStart is gate; allowStart false never starts a server (it still
// adopts a running one). While a restore runs, the call waits for it
// (restoregate.go), then passes the health gate again: the server may have
// died meanwhile.
func (s *Server) gateStart(ctx context.Context, allowStart bool) error {
	for {
		if err := s.healthGate(ctx, allowStart); err != nil {
			return err
		}
		done := s.restoreInProgress()
		if done == nil {
			return nil
		}
		if err := s.awaitRestore(ctx, done); err != nil || s.isRestorer(ctx) {
			return err
		}
	}
}

// gateFor is gate for tmux command name: a listing (listsTree) passes a
// restore in progress and may show the tree part restored; every other
// command waits for it.
func (s *Server) gateFor(ctx context.Context, name string) error {
	if listsTree[name] {
		return s.healthGate(ctx, true)
	}
	return s.gate(ctx)
}

// listsTree names the commands that only list or describe the server and
// its tree, without naming any object the restore may be restoring: they
// are answered during a restore (a partial tree is a true answer, and
// Health says a restore runs), so that the first calls after a death are
// not held for the whole restore. Commands that change the tree or act on
// one object wait: a session about to be restored must not be created
// twice, and an old ID must not reach a half-built tree.
var listsTree = map[string]bool{
	"list-sessions": true, "list-windows": true, "list-panes": true, "list-clients": true,
	"list-buffers": true, "list-commands": true, "list-keys": true, "show-messages": true, "server-info": true,
}

// AwaitRestore waits while a restore of this server's sessions runs (see
// gateStart); it fails like a call that gave up waiting. Callers that
// resolve old IDs through the journal wait here first: the ID map is
// written when the restore ends.
func (s *Server) AwaitRestore(ctx context.Context) error {
	if done := s.restoreInProgress(); done != nil {
		return s.awaitRestore(ctx, done)
	}
	return nil
}

// healthGate is gateStart without the restore gate.
func (s *Server) healthGate(ctx context.Context, allowStart bool) error {
	if err := s.awaitKilled(ctx); err != nil {
		return err
	}
	err := s.failFast()
	if errors.Is(err, ErrServerDown) && s.reprobeDue() {
		// The restart policy gave up, but a server may answer again (fixed by hand,
		// or started by someone else): adopt it, never start one.
		if aerr := s.readopt(ctx); aerr == nil {
			return nil
		}
	}
	if err != nil {
		spanEvent(ctx, "tmux.gate_refused", attribute.String("tmux.socket", s.sock.String()),
			attribute.String("tmux.error_class", tmux.ClassName(err)))
		return err
	}
	if s.State() == StateUp {
		return nil
	}
	return s.ensure(ctx, allowStart)
}

// reprobeInterval spaces the checks of a server that the restart policy gave up on.
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

// readopt adopts a server that answers on the socket after the restart policy gave up.
func (s *Server) readopt(ctx context.Context) error {
	select {
	case s.ensureSem <- struct{}{}:
		defer func() { <-s.ensureSem }()
	case <-ctx.Done():
		return ctx.Err()
	}
	// Nothing answering fails at the first step; a server that answers
	// gets each round trip of the adoption its own CommandTimeout.
	cctx, cancel := context.WithTimeout(ctx, adoptSteps*s.cfg.CommandTimeout)
	defer cancel()
	s.client.ForgetServer()
	if err := s.client.Connect(cctx); err != nil {
		return err
	}
	s.mu.Lock()
	s.tracker.Reset(s.now())
	s.mu.Unlock()
	return s.adopt(cctx, nil)
}

// failFast returns the error of a call made while the server is being
// restarted, is down for good, or is no longer supervised; nil otherwise.
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
	// contacted, or down and startable, is (re)started here. Restarting after
	// a death belongs to the monitor.
	if s.State() == StateUp {
		return nil
	}
	if err := s.failFast(); err != nil {
		return err
	}
	var owned *tmux.StartedServer
	var endRestore func()
	var err error
	for attempt := 0; ; attempt++ {
		owned, err = s.connectOrStart(ctx, allowStart)
		// A server this call started replaces one that is gone (a death
		// not restarted, or one before this process ran): it is restored
		// like a restarted one, the Restorer deciding whether there is
		// anything to restore. The gate closes before the server is marked
		// up and opens when the restore ends; the restore does not run
		// under this caller's deadline.
		if err == nil && owned != nil && s.cfg.Restorer != nil {
			endRestore = s.beginRestore()
		}
		if err == nil {
			err = s.adopt(ctx, owned)
		}
		// The socket took the connection but no server answered: a server
		// that died just now, whose listening socket a child it was
		// forking (a pane's process before it closes the server's files)
		// still held. Once more from the start, which finds the socket
		// refusing and starts a server.
		if err != nil && owned == nil && attempt == 0 && tmux.IsServerDown(err) && ctx.Err() == nil {
			s.client.ForgetServer()
			continue
		}
		break
	}
	if err != nil && owned != nil {
		err = startedButLost(owned, err)
		// A server we started but could not take over would be adopted
		// later as not ours: no restore, no exit status. End it instead,
		// before the start lock is released.
		owned.Kill() // our own child, by its handle
	}
	if endRestore != nil {
		// Counted under mu: close marks the server closed under mu
		// before it waits for the restores counted.
		s.mu.Lock()
		run := err == nil && s.state != StateClosed
		if run {
			s.restores.Add(1)
		}
		s.mu.Unlock()
		if run {
			go func() {
				defer s.restores.Done()
				// Another process waits to adopt it until it is restored.
				defer owned.Release()
				s.runRestorer(s.life, owned.PID, endRestore)
			}()
		} else {
			endRestore()
			owned.Release()
		}
	} else {
		owned.Release()
	}
	return err
}

// connectOrStart connects to the server of the socket or, when there is
// none and starting is allowed, starts one (owned) and connects to it.
func (s *Server) connectOrStart(ctx context.Context, allowStart bool) (owned *tmux.StartedServer, err error) {
	err = s.client.Connect(ctx)
	if _, _, team := s.teamLead(); team && (errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrSocketMissing)) {
		return nil, fmt.Errorf("supervisor: %s is an agent team's private server, which only its owner starts: %w", s.sock, err)
	}
	if err != nil && (errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrSocketMissing)) && allowStart && !s.cfg.NoStart {
		// Never start a server while the one we knew may be alive with its
		// socket deleted: that orphans it.
		if old := s.identity(); old.pid > 0 && proc.PIDAlive(old.pid, old.startTime) {
			return nil, fmt.Errorf("supervisor: server PID %d is alive but its socket %s does not answer: %w",
				old.pid, s.sock.ResolvedPath(), err)
		}
		// A server we never knew may still listen on the deleted path:
		// give it its socket back instead of starting another.
		if pid := proc.ListenerPID(s.sock.ResolvedPath()); pid > 0 && errors.Is(err, tmux.ErrSocketMissing) {
			if rerr := s.recreateSocket(ctx, identity{pid: pid}); rerr != nil {
				return nil, fmt.Errorf("supervisor: server PID %d still listens on the deleted socket %s: %w", pid, s.sock.ResolvedPath(), rerr)
			}
			return nil, nil
		}
		owned, err = s.client.Exec().StartServer(ctx, tmux.StartOptions{FDLimit: s.cfg.FDLimit})
		if err != nil && !errors.Is(err, tmux.ErrServerRunning) { // lost a start race: adopt the winner
			return nil, fmt.Errorf("supervisor: start server: %w", err)
		}
		s.client.ForgetServer()
		err = s.client.Connect(ctx)
	}
	return owned, err
}

// adopt records the identity of the server that now answers, marks it up
// and makes sure the monitor runs.
func (s *Server) adopt(ctx context.Context, owned *tmux.StartedServer) error {
	info, err := s.client.Info(ctx)
	if err != nil {
		return err
	}
	start, _ := proc.StartTime(info.PID)
	pctx, stop := context.WithCancel(context.Background())
	exited, err := proc.WatchExit(pctx, info.PID)
	if err != nil {
		stop()
		exited = nil // no exit watch: probes and the control connection remain
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
		owned: owned, pidExited: exited, stopPidfd: stop, sockIno: proc.SocketInode(s.sock.ResolvedPath())}
	s.state = StateUp
	s.fresh.SetUp(true)
	s.startable = true
	s.killRequested, s.killSent = false, false
	s.tracker.Up(s.now())
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

func (s *Server) close() error {
	s.mu.Lock()
	s.state = StateClosed
	s.fresh.SetUp(false)
	stop, done := s.monitorStop, s.monitorDone
	if s.id.stopPidfd != nil {
		s.id.stopPidfd()
	}
	s.mu.Unlock()
	closeWatchers := s.fresh.Close()
	if stop != nil {
		stop()
		<-done
	}
	s.endLife()
	s.restores.Wait()
	s.fresh.ClosePipes()
	errs := closeWatchers()
	errs = append(errs, s.client.Close())
	return errors.Join(errs...)
}

// Kill runs kill-server. The death that follows is classified as
// death.CauseKillServer and not restarted; the next call starts a new server.
func (s *Server) Kill(ctx context.Context) error {
	// Never start a server only to kill it.
	if err := s.gateStart(ctx, false); err != nil {
		return err
	}
	s.mu.Lock()
	s.killRequested = true
	s.mu.Unlock()
	_, err := s.do(ctx, "kill-server")
	if err != nil && !tmux.IsServerDown(err) {
		s.mu.Lock()
		s.killRequested = false
		s.mu.Unlock()
		return err
	}
	// Wait for the monitor to see the death, so that the caller's next
	// call starts a fresh server instead of racing the dying one. A caller
	// that stops waiting has still killed it: the calls after it wait.
	s.awaitKilled(ctx) //nolint:errcheck // see above
	return nil
}

// killExitWait bounds awaitKilled for a caller without a deadline: a
// server that has not exited this long after kill-server is not exiting.
const killExitWait = 30 * time.Second

// awaitKilled waits, within ctx, while a server that answered our
// kill-server has not yet been seen to die. tmux destroys its sessions one
// by one before it exits (closing a pane's terminal took 1.6 s on a busy
// machine), answers nothing meanwhile, and closes every new connection at
// once: a call sent to it fails with the connection, while the same call
// after the death starts the next server.
func (s *Server) awaitKilled(ctx context.Context) error {
	if !s.killPending() {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, killExitWait)
		defer cancel()
	}
	for s.killPending() {
		s.nudge()
		if err := sleepCtx(ctx, 5*time.Millisecond); err != nil {
			return fmt.Errorf("supervisor: the tmux server on %s was killed (kill-server) and has not exited yet: %w", s.sock, err)
		}
	}
	return nil
}

// killing reports a kill-server of ours sent (or about to be) to a server
// still taken for up.
func (s *Server) killing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == StateUp && s.killRequested
}

// killPending reports a kill-server of ours answered by a server still
// taken for up.
func (s *Server) killPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == StateUp && s.killSent
}

// startedButLost adds to err, the failure to take over a server this call
// started, what became of that server: whether it had already exited, and
// how (a crash says so by its signal), or still ran. A server that died
// at once is tmux's fault, one that runs is the connection's.
func startedButLost(owned *tmux.StartedServer, err error) error {
	select {
	case <-owned.Done():
		return fmt.Errorf("%w (the tmux server tmux-mcp had just started, PID %d, ended: %v)", err, owned.PID, owned.Err())
	case <-time.After(100 * time.Millisecond):
		return fmt.Errorf("%w (the tmux server tmux-mcp had just started, PID %d, still runs)", err, owned.PID)
	}
}
