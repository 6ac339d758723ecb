package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// died records a death, tells subscribers and carries out the restart
// policy's decision.
func (s *Server) died(ctx context.Context, id identity, cause death.Cause, detail string) {
	now := s.now()
	s.mu.Lock()
	if s.state != StateUp || s.killRequested && cause != death.CauseKillServer {
		// A server we are killing that looks unwell (it stops answering
		// and closes new connections as it exits) is not dying of that:
		// its exit, a kill_server death, follows.
		s.mu.Unlock()
		return
	}
	s.lastCause, s.lastDetail, s.lastDeathAt = cause, detail, now
	d := s.tracker.Decide(now, cause)
	if s.cfg.Observe {
		// Observe only (Config.Observe): nothing is restarted, terminated
		// or signalled; the next call adopts a server that answers again.
		d = death.Decision{Action: death.ActNone, Reason: "observing only (readonly tier): tmux-mcp does not restart servers"}
	}
	if lead, pid, ok := s.teamLead(); ok {
		d = death.Decision{Action: death.ActGiveUp, Reason: fmt.Sprintf(
			"the private server of a %s agent team (its lead is PID %d): its owner starts it, tmux-mcp neither restarts nor restores it", lead, pid)}
	}
	s.pending = d
	if s.id.stopPidfd != nil {
		s.id.stopPidfd()
	}
	switch d.Action {
	case death.ActRestart, death.ActRecreateSocket, death.ActTerminate:
		s.state, s.retryAt = StateRestarting, now.Add(d.Delay)
	case death.ActNone, death.ActStartOnDemand:
		s.state, s.startable = StateDown, true
	default:
		s.state, s.startable = StateDown, false
	}
	s.fresh.SetUp(false)
	s.mu.Unlock()
	// The death is a span of its own, from detection to the end of
	// the last restart (or giving up); restarts and restores are its children.
	ctx, span := s.tracer.Start(ctx, "tmux server death", trace.WithAttributes(
		attribute.String("tmux.socket", s.sock.String()), attribute.Int("tmux.server.pid", id.pid),
		attribute.String("tmux.death.cause", string(cause)), attribute.String("tmux.recovery.action", d.Action.String())))
	defer func() {
		st := s.State()
		span.SetAttributes(attribute.Bool("tmux.recovered", st == StateUp), attribute.String("tmux.server.state", string(st)))
		if st != StateUp && d.Action != death.ActNone && d.Action != death.ActStartOnDemand {
			span.SetStatus(codes.Error, "not recovered")
		}
		span.End()
	}()
	closeWatchers := s.fresh.Reset()
	// In the background: closing the watchers of a stopped server takes
	// seconds each, and the death must be announced and acted on now.
	go closeWatchers()
	s.bus.emit(Event{Type: EventServerDied, Socket: s.sock, PID: id.pid, Cause: cause, Detail: detail})
	if d.Action == death.ActRecreateSocket || d.Action == death.ActRestart || d.Action == death.ActTerminate {
		s.bus.emit(Event{Type: EventRestarting, Socket: s.sock, PID: id.pid, Cause: cause, Attempt: d.Attempt, Delay: d.Delay, Detail: d.Reason})
	}
	if d.Action != death.ActRecreateSocket {
		s.client.Close() //nolint:errcheck // the connection is dead
		s.client.ForgetServer()
	}
	s.restartLoop(ctx, id, cause, d)
}

// restartLoop carries out decisions until the server is back or the policy
// gives up. It runs on the monitor goroutine.
func (s *Server) restartLoop(ctx context.Context, id identity, cause death.Cause, d death.Decision) {
	for {
		var err error
		switch d.Action {
		case death.ActRecreateSocket, death.ActRestart, death.ActTerminate:
			if err = sleepCtx(ctx, d.Delay); err != nil {
				return
			}
		default:
			return
		}
		actx, span := s.tracer.Start(ctx, "tmux server "+d.Action.String(), trace.WithAttributes(
			attribute.String("tmux.socket", s.sock.String()), attribute.Int("tmux.recovery.attempt", d.Attempt)))
		switch d.Action {
		case death.ActRecreateSocket:
			err = s.recreateSocket(actx, id)
		case death.ActTerminate:
			terminate(actx, id)
			err = s.restart(actx)
		case death.ActRestart:
			err = s.restart(actx)
		}
		if err != nil {
			span.SetStatus(codes.Error, tmux.ClassName(err))
		}
		span.End()
		if err == nil {
			return
		}
		if d.Action == death.ActRecreateSocket && !proc.PIDAlive(id.pid, id.startTime) {
			// The server died while its socket was gone: nothing to signal
			// any more, start a new one instead.
			cause = death.CauseUnknown
		}
		now := s.now()
		s.mu.Lock()
		s.lastDetail = fmt.Sprintf("%s; restart failed: %v", s.lastDetail, err)
		d = s.tracker.Decide(now, cause)
		s.pending = d
		if s.state == StateClosed {
			s.mu.Unlock()
			return
		}
		if d.Action == death.ActGiveUp {
			s.state, s.startable = StateDown, false
			s.fresh.SetUp(false)
		} else {
			s.retryAt = now.Add(d.Delay)
		}
		s.mu.Unlock()
		if d.Action != death.ActGiveUp {
			s.bus.emit(Event{Type: EventRestarting, Socket: s.sock, Cause: cause, Attempt: d.Attempt, Delay: d.Delay, Detail: d.Reason})
		}
	}
}

// recreateSocket brings back a deleted socket: mkdir -p -m 700 of its
// directory, SIGUSR1 to the live server, then verify it answers. It never
// starts a server.
func (s *Server) recreateSocket(ctx context.Context, id identity) error {
	path := s.sock.ResolvedPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("supervisor: recreate socket directory: %w", err)
	}
	if !proc.PIDAlive(id.pid, id.startTime) {
		return fmt.Errorf("supervisor: server PID %d is gone", id.pid)
	}
	if err := syscall.Kill(id.pid, syscall.SIGUSR1); err != nil {
		return fmt.Errorf("supervisor: signal server: %w", err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for proc.ProbeSocket(ctx, path, 100*time.Millisecond) != nil {
		if time.Now().After(deadline) {
			return errors.New("supervisor: socket not recreated after SIGUSR1")
		}
		if err := sleepCtx(ctx, 5*time.Millisecond); err != nil {
			return err
		}
	}
	cctx, cancel := context.WithTimeout(ctx, connectSteps*s.cfg.CommandTimeout)
	defer cancel()
	if err := s.client.Connect(cctx); err != nil {
		return err
	}
	s.mu.Lock()
	if s.state == StateClosed {
		s.mu.Unlock()
		return nil
	}
	s.state = StateUp
	s.fresh.SetUp(true)
	s.restarts++
	s.tracker.Up(s.now())
	s.id.sockIno = proc.SocketInode(path)
	pctx, stop := context.WithCancel(context.Background())
	if exited, err := proc.WatchExit(pctx, id.pid); err == nil {
		s.id.pidExited, s.id.stopPidfd = exited, stop
	} else {
		stop()
	}
	s.mu.Unlock()
	s.bus.emit(Event{Type: EventSocketRecreated, Socket: s.sock, PID: id.pid})
	return nil
}

// terminate ends a hung or livelocked server: SIGTERM, then SIGKILL if it
// is still alive a second later. Only the PID (and start time) we recorded
// is signalled.
func terminate(ctx context.Context, id identity) {
	if !proc.PIDAlive(id.pid, id.startTime) {
		return
	}
	syscall.Kill(id.pid, syscall.SIGCONT) //nolint:errcheck // a stopped process cannot handle SIGTERM
	syscall.Kill(id.pid, syscall.SIGTERM) //nolint:errcheck
	deadline := time.Now().Add(time.Second)
	for proc.PIDAlive(id.pid, id.startTime) && time.Now().Before(deadline) {
		if sleepCtx(ctx, 10*time.Millisecond) != nil {
			return
		}
	}
	if proc.PIDAlive(id.pid, id.startTime) {
		syscall.Kill(id.pid, syscall.SIGKILL) //nolint:errcheck
	}
}

// connectSteps is how many tmux round trips attaching to a server takes at
// most, each allowed CommandTimeout: its version, the hidden session
// (looked up, created) and the control connection. adoptSteps adds reading
// the server's identity (two queries); restartSteps adds starting it.
const (
	connectSteps = 4
	adoptSteps   = connectSteps + 2
	restartSteps = 1 + adoptSteps
)

// restart starts a new server, attaches to it and runs the restore hook.
func (s *Server) restart(ctx context.Context) error {
	if s.cfg.NoStart {
		return errors.New("supervisor: starting servers is disabled (NoStart)")
	}
	sctx, cancel := context.WithTimeout(ctx, restartSteps*s.cfg.CommandTimeout)
	defer cancel()
	s.client.ForgetServer()
	// Another tmux-mcp process on the same socket may have restarted the
	// server first: adopt it rather than fight over the socket.
	owned, err := s.client.Exec().StartServer(sctx, tmux.StartOptions{FDLimit: s.cfg.FDLimit})
	if err != nil && !errors.Is(err, tmux.ErrServerRunning) {
		return err
	}
	// Another process waits to adopt it until it is restored (Release).
	defer owned.Release()
	// Only the process that started the new server restores it; one that
	// adopted it leaves that to the winner (restoring twice duplicates).
	// The restore gate closes before the server is marked up, so that no
	// call sees the tree half restored, and opens on every path below.
	endRestore := func() {}
	if s.cfg.Restorer != nil && owned != nil {
		endRestore = s.beginRestore()
	}
	defer endRestore()
	err = s.client.Connect(sctx)
	if err == nil {
		err = s.adopt(sctx, owned)
	}
	if err != nil {
		if owned != nil {
			owned.Kill() // ours, and not taken over
		}
		return err
	}
	pid := s.identity().pid
	s.mu.Lock()
	s.restarts++
	s.mu.Unlock()
	s.bus.emit(Event{Type: EventRestarted, Socket: s.sock, PID: pid})
	if s.cfg.Restorer != nil && owned != nil {
		s.runRestorer(ctx, pid, endRestore)
	}
	return nil
}
