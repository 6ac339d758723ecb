package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// The restore gate. A server that tmux-mcp has just started after a death
// is up before its sessions are back: the Restorer restores them with
// ordinary calls. Until it returns, every other caller waits at the gate,
// so that nobody sees half of the restored tree or creates a duplicate of
// a session the restore is about to create. The Restorer's own calls
// carry a context mark (withRestorer) and pass.

// restoreWaitCap bounds how long a call waits for a restore, whatever its
// context allows; restoreTimeout bounds the restore itself.
const (
	restoreWaitCap = 10 * time.Second
	restoreTimeout = 30 * time.Second
	// restoreRetry is the retry delay a call that gave up waiting is told.
	restoreRetry = time.Second
)

// ErrRestoring matches the error of a call that waited for a restore of
// its server's sessions and gave up (its deadline, or restoreWaitCap).
// It also matches ErrRestarting: the server is not ready yet.
var ErrRestoring = errors.New("supervisor: tmux server restoring")

// restoringError is the error of a call that gave up waiting for a
// restore.
type restoringError struct {
	Waited time.Duration
}

func (e *restoringError) Error() string {
	return fmt.Sprintf("tmux server restoring its sessions after a restart (waited %s), retry in %s",
		death.RoundDelay(e.Waited), death.RoundDelay(restoreRetry))
}

func (e *restoringError) Is(target error) bool {
	return target == ErrRestoring || target == ErrRestarting
}

// RetryDelay says when the call may succeed.
func (e *restoringError) RetryDelay() time.Duration { return restoreRetry }

// restorerKey marks the context of a Restorer's calls; its value is the
// server being restored, so that the mark opens no other server's gate.
type restorerKey struct{}

func withRestorer(ctx context.Context, s *Server) context.Context {
	return context.WithValue(ctx, restorerKey{}, s)
}

func (s *Server) isRestorer(ctx context.Context) bool {
	v, _ := ctx.Value(restorerKey{}).(*Server)
	return v == s
}

// RestoreState says where a restore of a server's sessions stands. A
// restore begins when tmux-mcp has started a server again after a death
// (or for the first time) and a Restorer is configured.
type RestoreState int

const (
	// RestoreNone: no restore runs; every call passes the restore gate.
	RestoreNone RestoreState = iota
	// RestoreChecking: the gate is closed while the Restorer decides
	// whether anything is to be restored (a brand-new server, or one that
	// ended on purpose, has nothing). Nothing announces it.
	RestoreChecking
	// RestoreRunning: the Restorer is restoring sessions (MarkRestoring):
	// an answer given now may show part of the tree, and Health says
	// restoring.
	RestoreRunning
)

var restoreStateNames = [...]string{RestoreNone: "none", RestoreChecking: "checking", RestoreRunning: "running"}

func (r RestoreState) String() string { return restoreStateNames[r] }

// restoreRun is the restore in progress: done is closed when it ends; nil
// when none runs.
type restoreRun struct {
	state RestoreState
	done  chan struct{}
	since time.Time
}

// beginRestore closes the gate. It is called before the new server is
// marked up, so that no call slips in between; the returned function
// opens it again, must be called on every path and may be called twice.
func (s *Server) beginRestore() (end func()) {
	done := make(chan struct{})
	s.mu.Lock()
	s.restore = restoreRun{state: RestoreChecking, done: done, since: s.now()}
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			if s.restore.done == done {
				s.restore = restoreRun{}
			}
			s.mu.Unlock()
			close(done)
		})
	}
}

// MarkRestoring tells the supervisor that the Restorer running under ctx
// has found something to restore: from then until the restore ends, its
// state is RestoreRunning and Health says that the server's sessions are
// being restored. Outside a Restorer's calls it does nothing.
func MarkRestoring(ctx context.Context) {
	s, _ := ctx.Value(restorerKey{}).(*Server)
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.restore.state == RestoreChecking {
		s.restore.state = RestoreRunning
	}
}

// RestoreState returns where a restore of this server's sessions stands.
func (s *Server) RestoreState() RestoreState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restore.state
}

// restoreInProgress returns the channel that closes when the running
// restore ends, nil when none runs.
func (s *Server) restoreInProgress() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restore.done
}

// awaitRestore waits while a restore runs, at most until ctx ends or
// restoreWaitCap has passed since it began waiting. A Restorer's own calls
// never wait.
func (s *Server) awaitRestore(ctx context.Context, done <-chan struct{}) error {
	if s.isRestorer(ctx) {
		return nil
	}
	s.restoreWaiters.Add(1)
	defer s.restoreWaiters.Add(-1)
	start := time.Now()
	t := time.NewTimer(restoreWaitCap)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	case <-t.C:
	}
	return &restoringError{Waited: time.Since(start)}
}

// runRestorer calls the Restorer on the server that just came up and opens
// the gate (end) when it returns, fails, panics or runs out of time. It
// announces EventRestored either way.
func (s *Server) runRestorer(ctx context.Context, pid int, end func()) {
	defer end()
	rctx, cancel := context.WithTimeout(withRestorer(ctx, s), restoreTimeout)
	defer cancel()
	rctx, span := s.tracer.Start(rctx, "tmux server restore", trace.WithAttributes(
		attribute.String("tmux.socket", s.sock.String()), attribute.Int("tmux.server.pid", pid)))
	defer span.End()
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("supervisor: restorer panicked: %v", r)
			}
		}()
		return s.cfg.Restorer.Restore(rctx, s)
	}()
	detail := ""
	if err != nil {
		detail = err.Error()
		span.SetStatus(codes.Error, tmux.ClassName(err))
	}
	// Open the gate before announcing: a subscriber that reacts to the
	// event with a call must not wait for this very restore.
	end()
	s.bus.emit(Event{Type: EventRestored, Socket: s.sock, PID: pid, Detail: detail})
}
