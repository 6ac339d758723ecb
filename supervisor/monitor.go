package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// monitor watches one server until ctx ends. It wakes on the cheapest
// signal available: the control connection ending, the server's pidfd, the
// exit of a server we started, a failed call (nudge), or the probe tick
// (which also samples resources).
func (s *Server) monitor(ctx context.Context, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(s.cfg.ProbeInterval)
	defer tick.Stop()
	for {
		var ctrlDone, pidDone, ownedDone <-chan struct{}
		if ctrl := s.client.Control(); ctrl != nil {
			ctrlDone = ctrl.Done()
		}
		s.mu.Lock()
		if s.state == StateUp {
			pidDone = s.id.pidExited
			if s.id.owned != nil {
				ownedDone = s.id.owned.Done()
			}
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-ctrlDone:
			s.check(ctx, "control connection ended")
		case <-pidDone:
			s.check(ctx, "server process exited")
		case <-ownedDone:
			s.check(ctx, "server process exited")
		case <-s.wake:
			s.check(ctx, "a call failed")
		case <-tick.C:
			s.tick(ctx)
		}
	}
}

// tick samples resources and probes a live server.
func (s *Server) tick(ctx context.Context) {
	if s.State() != StateUp {
		return
	}
	s.sample(ctx, s.identity().pid) //nolint:errcheck // a gone process is check's business
	s.check(ctx, "probe")
}

// probeTimeout bounds the liveness probe's command.
const probeTimeout = time.Second

// check looks at the server after a signal and handles a death or hang.
func (s *Server) check(ctx context.Context, trigger string) {
	if s.State() != StateUp {
		return
	}
	id := s.identity()
	ev := death.Evidence{PID: id.pid}
	ev.PIDAlive = proc.PIDAlive(id.pid, id.startTime)
	if ev.PIDAlive && s.killing() {
		// It answered our kill-server and is exiting: destroying its
		// sessions (closing a pane's terminal can take seconds on a busy
		// machine) or waiting for a job. It answers nothing meanwhile, and
		// that is no hang to restart: its exit, which wakes the monitor,
		// is the death.
		return
	}
	path := s.sock.ResolvedPath()
	ev.ConnectErr = proc.ProbeSocket(ctx, path, 200*time.Millisecond)
	ctrl := s.client.Control()

	if ev.PIDAlive && ev.ConnectErr != nil && !errors.Is(ev.ConnectErr, syscall.ENOENT) && exitsSoon(ctx, id) {
		// A refused connection from a live PID is usually a server still
		// dying (kill -9 closes its socket before the process is gone):
		// its pidfd wakes the monitor in a moment for the dead path.
		return
	}
	if ev.PIDAlive {
		s.checkLive(ctx, id, ev, ctrl, trigger)
		return
	}
	// The process is gone.
	if id.owned != nil {
		ev.Wait = death.WaitStatusOf(id.owned.Err())
	} else if ws, ok := proc.ZombieStatus(id.pid, id.startTime); ok {
		ev.Wait = &ws
	}
	s.mu.Lock()
	ev.KillRequested = s.killRequested
	ev.SessionsChangedBeforeExit = !s.lastStructure.IsZero() && s.now().Sub(s.lastStructure) < time.Second
	ev.FDRatio = s.res.FDRatio()
	s.mu.Unlock()
	if ctrl == nil && !s.cfg.ExecOnly {
		ev.ControlExited = true
		if err := s.client.LastControlError(); err != nil {
			var lost *tmux.ConnLostError
			if errors.As(err, &lost) {
				ev.ControlExitReason = lost.Reason
			}
		}
	}
	cause, detail := death.Classify(ev)
	s.died(ctx, id, cause, detail)
}

// checkLive handles a server whose process is alive: does its socket
// still lead to it, and does it answer? Every abnormal answer goes to
// death.Classify; a live server that answers is left alone.
func (s *Server) checkLive(ctx context.Context, id identity, ev death.Evidence, ctrl *tmux.Control, trigger string) {
	var live death.Liveness // a socket that times out: nothing known but the CPU
	s.mu.Lock()
	live.CPU, live.CPUIsWork = s.res.CPUTime, s.res.FDRatio() < death.FDLivelockRatio
	s.mu.Unlock()
	if ev.ConnectErr == nil {
		if replaced, newPID := s.socketReplaced(ctx, id); replaced {
			s.died(ctx, id, death.CauseSocketDeleted, fmt.Sprintf(
				"server PID %d, which holds the sessions, lost its socket to another server (PID %d): SIGUSR1 takes it back", id.pid, newPID))
			return
		}
		// Does it answer? Over the command connection when it is up: a new
		// client costs the server three fds, which is exactly what a server
		// near its limit cannot afford. Except when the last sample looks
		// like fd livelock (fds at the edge of the limit, CPU spinning): a
		// livelocked server still answers control clients that are already
		// attached (their commands do not pass fds), but every new client
		// hangs. Only a new client can tell. Spinning shows as over half a
		// core of CPU, or, on a machine too busy to give it that, as a
		// process that is runnable whenever it is sampled.
		var probe tmux.Transport = s.client.Exec()
		s.mu.Lock()
		suspect := !live.CPUIsWork && (s.res.CPUPercent >= 50 || s.res.Runnable)
		s.mu.Unlock()
		viaCtrl := ctrl != nil && !suspect
		if viaCtrl {
			probe = ctrl
		}
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		_, err := probe.Run(pctx, "display-message", "-p", "#{pid}")
		cancel()
		if viaCtrl {
			// Answers to earlier commands (tmux-mcp's own, or earlier
			// probes abandoned at their timeout) show a server working
			// through its queue.
			live.AnsweredAt = ctrl.LastAnswer()
		}
		if err == nil {
			s.hangVerdict(death.Liveness{})
			if ctrl == nil && !s.cfg.ExecOnly {
				// The command connection went away but the server lives:
				// reconnect; exec carries the calls meanwhile.
				cctx, cancel := context.WithTimeout(ctx, probeTimeout)
				s.client.Connect(cctx) //nolint:errcheck // retried on the next tick
				cancel()
			}
			return
		}
		if !errors.Is(err, tmux.ErrTimeout) && !tmux.IsServerDown(err) && !errors.Is(err, tmux.ErrPermission) &&
			!errors.Is(err, tmux.ErrVersionMismatch) {
			return // it answered, with an error about the command: alive and well
		}
		if !errors.Is(err, tmux.ErrTimeout) && exitsSoon(ctx, id) {
			return // dying, not ailing: the dead path follows
		}
		ev.StderrClass = err
		if errors.Is(err, tmux.ErrTimeout) {
			ev.ConnectErr = err
		}
	}
	timedOut := errors.Is(ev.ConnectErr, tmux.ErrTimeout) || errors.Is(ev.ConnectErr, syscall.EAGAIN) ||
		errors.Is(ev.ConnectErr, context.DeadlineExceeded) || errors.Is(ev.ConnectErr, os.ErrDeadlineExceeded)
	if timedOut {
		live.TimedOut = true
		if s.hangVerdict(live) != death.VerdictHung {
			return
		}
		s.mu.Lock()
		ev.FDRatio = s.res.FDRatio()
		wasBusy := s.tracker.WasBusy()
		s.mu.Unlock()
		ev.ProbeTimeouts = 1
		if wasBusy {
			trigger += "; it kept using CPU, but answered nothing for the busy limit either"
		}
	}
	cause, detail := death.Classify(ev)
	if cause == "" {
		return
	}
	s.died(ctx, id, cause, detail+" (noticed by "+trigger+")")
}

// hangVerdict records one probe of the live server (l.TimedOut false: it
// answered) and returns the hang detector's verdict (supervisor/death/hung.go).
func (s *Server) hangVerdict(l death.Liveness) death.Verdict {
	s.mu.Lock()
	v := s.tracker.Probe(s.now(), l)
	hook := s.testProbeHook
	s.mu.Unlock()
	if hook != nil {
		hook(l, v)
	}
	return v
}

// exitGrace is how long a server that looks unwell but alive gets to turn
// out to be exiting.
const exitGrace = 200 * time.Millisecond

// exitsSoon reports whether the server process ends within exitGrace, or
// has begun to exit (proc.Exiting): the kernel closes a dying process's
// socket before it is a zombie, and on a loaded machine the rest of the
// exit can take longer than any grace.
func exitsSoon(ctx context.Context, id identity) bool {
	deadline := time.Now().Add(exitGrace)
	for proc.PIDAlive(id.pid, id.startTime) {
		if proc.Exiting(id.pid, id.startTime) {
			return true
		}
		if time.Now().After(deadline) || sleepCtx(ctx, 5*time.Millisecond) != nil {
			return false
		}
	}
	return true
}

// socketReplaced reports whether the socket path now leads to another
// server than the one we adopted. The socket file's inode is checked first
// (free); only when it changed does a new client ask who answers (a
// SIGUSR1 from another tmux-mcp also makes a new inode, for the same PID).
func (s *Server) socketReplaced(ctx context.Context, id identity) (bool, int) {
	ino := proc.SocketInode(s.sock.ResolvedPath())
	if ino == 0 || id.sockIno == 0 || ino == id.sockIno {
		return false, 0
	}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	out, err := s.client.Exec().Run(pctx, "display-message", "-p", "#{pid}")
	cancel()
	if err != nil {
		return false, 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	if pid == id.pid {
		s.mu.Lock()
		s.id.sockIno = ino
		s.mu.Unlock()
		return false, 0
	}
	return pid > 0, pid
}
