package mcpserver

import (
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestPumpCoalesces drives one subscription's pump with a burst of
// signals: updates are at least the interval apart, and one follows the
// last signal.
func TestPumpCoalesces(t *testing.T) {
	const every = 50 * time.Millisecond
	m := &subscriptions{every: every, live: map[*subscription]bool{}}
	var mu sync.Mutex
	var sent []time.Time
	sub := &subscription{m: m, quit: make(chan struct{}), done: make(chan struct{}), cancel: func() {},
		send: func() { mu.Lock(); sent = append(sent, time.Now()); mu.Unlock() }}
	in := make(chan struct{}, 1)
	go func() { defer close(sub.done); sub.pump(in) }()
	burst := time.Now()
	var last time.Time
	for time.Since(burst) < 10*every {
		select {
		case in <- struct{}{}:
		default:
		}
		last = time.Now()
		time.Sleep(time.Millisecond)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "an update after the last signal", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(sent) > 0 && sent[len(sent)-1].After(last)
	})
	sub.started = true
	sub.stop()
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(sent); i++ {
		if gap := sent[i].Sub(sent[i-1]); gap < every {
			t.Errorf("updates %d and %d are %v apart, want at least %v", i-1, i, gap, every)
		}
	}
	t.Logf("a %v burst of signals: %d updates", 10*every, len(sent))
}
