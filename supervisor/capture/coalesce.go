package capture

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// Coalescer shares one run of a function between the callers that ask for
// the same key at about the same time, without ever handing a caller the
// result of a run that began before the caller did (unless the caller says
// that is fine).
//
// Per key at most one run is in flight. A caller that arrives while a run
// is in flight either joins it (join true: the caller has shown that an
// earlier start is as good as its own) or waits for the next run, which
// starts as soon as the one in flight ends and serves every caller that
// arrived meanwhile. So a burst of N callers costs at most two runs, and
// each caller's result reflects the world after it arrived: this is how a
// barrier proves that a capture is fresh and how unproven captures share a
// tmux call without going stale.
//
// A run does not belong to any caller: it runs on its own goroutine with
// the context its creator's f gives it, and a caller that stops waiting
// (its ctx ends) leaves it running for the others.
type Coalescer[K comparable, V any] struct {
	mu   sync.Mutex
	keys map[K]*coalesceKey[V]
	// waiting counts callers registered with a run and waiting for it.
	waiting atomic.Int32
}

type coalesceKey[V any] struct {
	inflight, next *coalesceRun[V]
}

type coalesceRun[V any] struct {
	f    func() (V, error)
	done chan struct{}
	val  V
	err  error
}

// do returns the result of a run of f for key that began no earlier than
// this call (or, with join, of the run in flight). f is used only if this
// call starts a run; callers that join run someone else's f, so every f
// given for one key must do the same work.
func (c *Coalescer[K, V]) Do(ctx context.Context, key K, join bool, f func() (V, error)) (V, error) {
	c.mu.Lock()
	if c.keys == nil {
		c.keys = map[K]*coalesceKey[V]{}
	}
	st := c.keys[key]
	if st == nil {
		st = &coalesceKey[V]{}
		c.keys[key] = st
	}
	var r *coalesceRun[V]
	start := false
	switch {
	case st.inflight == nil:
		r = &coalesceRun[V]{f: f, done: make(chan struct{})}
		st.inflight, start = r, true
	case join:
		r = st.inflight
	default:
		if st.next == nil {
			st.next = &coalesceRun[V]{f: f, done: make(chan struct{})}
		}
		r = st.next
	}
	c.waiting.Add(1)
	defer c.waiting.Add(-1)
	c.mu.Unlock()
	if start {
		go c.run(key, r)
	}
	select {
	case <-r.done:
		return r.val, r.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// run runs r, then the next run of its key if callers are waiting for one.
func (c *Coalescer[K, V]) run(key K, r *coalesceRun[V]) {
	for r != nil {
		func() {
			defer func() {
				if p := recover(); p != nil {
					r.err = fmt.Errorf("supervisor: panic in a shared tmux call: %v", p)
				}
			}()
			r.val, r.err = r.f()
		}()
		// The run leaves the key before its callers are released: a
		// caller that comes after its end must not join it (join means
		// "a run in flight is as good as mine", not one that is over),
		// and starts its own.
		c.mu.Lock()
		st := c.keys[key]
		st.inflight, st.next = st.next, nil
		next := st.inflight
		if next == nil {
			delete(c.keys, key)
		}
		c.mu.Unlock()
		close(r.done)
		r = next
	}
}

// inflight reports how many keys have a run in flight (for tests).
func (c *Coalescer[K, V]) inflight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.keys)
}
