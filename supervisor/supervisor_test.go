package supervisor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// recorder collects a supervisor's events.
type recorder struct {
	mu     sync.Mutex
	events []Event
	signal chan struct{}
}

func record(sup *Supervisor) *recorder {
	r := &recorder{signal: make(chan struct{}, 1)}
	sup.Subscribe(func(e Event) {
		r.mu.Lock()
		r.events = append(r.events, e)
		r.mu.Unlock()
		select {
		case r.signal <- struct{}{}:
		default:
		}
	})
	return r
}

// wait returns the first event matching ok, waiting up to timeout.
func (r *recorder) wait(t *testing.T, timeout time.Duration, what string, ok func(Event) bool) Event {
	t.Helper()
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		for _, e := range r.events {
			if ok(e) {
				r.mu.Unlock()
				return e
			}
		}
		r.mu.Unlock()
		select {
		case <-r.signal:
		case <-deadline:
			t.Fatalf("no %s event within %v; events: %v", what, timeout, r.types())
		}
	}
}

func (r *recorder) count(ok func(Event) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if ok(e) {
			n++
		}
	}
	return n
}

func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Type != EventCommand && e.Type != EventCacheHit {
			out = append(out, fmt.Sprintf("%s(%s)", e.Type, e.Cause))
		}
	}
	return out
}

func isType(typ EventType) func(Event) bool { return func(e Event) bool { return e.Type == typ } }

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newSup returns a supervisor whose default server lives on an isolated
// socket, with fast restarts for tests.
func newSup(t *testing.T, ts *tmuxtest.Server, cfg Config) *Supervisor {
	t.Helper()
	cfg.DefaultSocket = tmux.Socket{Path: ts.Socket}
	cfg.TmuxConfig = "/dev/null"
	if cfg.Restart.Initial == 0 {
		cfg.Restart.Initial = 20 * time.Millisecond
	}
	if cfg.ProbeInterval == 0 {
		cfg.ProbeInterval = 100 * time.Millisecond
	}
	sup := New(cfg)
	// Servers the supervisor starts are this test's: make sure cleanup ends
	// them even if they stopped answering.
	sup.Subscribe(func(e Event) {
		if e.Type == EventServerStarted || e.Type == EventServerAdopted {
			ts.Track(e.PID)
		}
	})
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return sup
}

func mustServer(t *testing.T, sup *Supervisor) *Server {
	t.Helper()
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatalf("default server: %v", err)
	}
	return srv
}

func mustDo(t *testing.T, srv *Server, args ...string) string {
	t.Helper()
	out, err := srv.do(testCtx(t), args...)
	if err != nil {
		t.Fatalf("tmux %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}
