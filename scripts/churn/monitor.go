package main

import (
	"context"
	"sync"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// monitor watches the tmux server's PID every 100 ms with kill(pid, 0)
// and its state in /proc (a zombie is dead). When it dies it records
// the death and how the process ended, then looks for the next server on
// the socket (tmux-mcp restarting it, or a person's new-session) and
// watches that one.
type monitor struct {
	w        *world
	interval time.Duration

	mu       sync.Mutex
	cur      loadtest.Ref // the server watched now; PID 0 while none answers
	pidStart int
	pidEnd   int
	checks   int
	deaths   []Death
	servers  []ServerSeen
}

// ServerSeen is a server process the monitor watched.
type ServerSeen struct {
	PID int     `json:"pid"`
	At  float64 `json:"at_s"` // when the monitor first saw it
}

func newMonitor(w *world, pid int) *monitor {
	m := &monitor{w: w, interval: 100 * time.Millisecond, cur: loadtest.RefOf(pid), pidStart: pid, pidEnd: pid}
	m.servers = append(m.servers, ServerSeen{PID: pid, At: w.since(time.Now())})
	return m
}

// alive is the monitor's test: kill(pid, 0) succeeds and /proc shows
// the same process (same start time), not a zombie.
func alive(r loadtest.Ref) bool {
	return r.PID > 0 && syscall.Kill(r.PID, 0) == nil && r.Same()
}

// run checks until ctx ends.
func (m *monitor) run(ctx context.Context) {
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		m.check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// check is one look at the server.
func (m *monitor) check(ctx context.Context) {
	m.mu.Lock()
	cur := m.cur
	m.checks++
	m.mu.Unlock()
	now := time.Now()
	if cur.PID > 0 {
		if alive(cur) {
			return
		}
		how := diedHow(cur.PID)
		m.mu.Lock()
		m.deaths = append(m.deaths, Death{At: m.w.since(now), PID: cur.PID, How: how})
		m.cur = loadtest.Ref{}
		m.mu.Unlock()
		return
	}
	// No server watched: is there a new one? (A command client of
	// tmux-mcp's client code, -N: it never starts one.)
	pid, err := m.w.serverPID(ctx)
	if err != nil {
		return
	}
	ref := loadtest.RefOf(pid)
	m.w.track(ref)
	m.mu.Lock()
	m.cur, m.pidEnd = ref, pid
	m.servers = append(m.servers, ServerSeen{PID: pid, At: m.w.since(now)})
	m.mu.Unlock()
}

// result is what the monitor saw: the first and last server PIDs, the
// deaths, whether a server was alive at the end, and the checks made.
func (m *monitor) result() ServerLife {
	m.mu.Lock()
	defer m.mu.Unlock()
	return ServerLife{PIDStart: m.pidStart, PIDEnd: m.pidEnd, AliveAtEnd: alive(m.cur), Checks: m.checks,
		Deaths: append([]Death(nil), m.deaths...), Servers: append([]ServerSeen(nil), m.servers...)}
}
