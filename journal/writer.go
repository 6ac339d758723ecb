package journal

import (
	"context"
	"errors"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// op is one queued write. Ops of a batch run in one transaction; an op
// that fails is skipped, the others commit.
type op func(tx *bolt.Tx) error

// writer writes queued ops in batches on a goroutine of its own, so that
// callers (event subscribers, tool handlers) never wait for the file.
type writer struct {
	j *Journal

	mu    sync.Mutex
	queue []op
	// finals run once per batch, after its ops, in the same transaction:
	// work that a batch's ops need done once between them (trimming a
	// bucket they grew), by key.
	finals   map[string]op
	queued   uint64        // ops ever queued
	written  uint64        // ops ever written (or given up on)
	dropped  uint64        // ops dropped because the queue was full
	progress chan struct{} // closed and replaced after each batch
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}

	lastPrune time.Time
}

// pruneEvery is how often the writer deletes expired events.
const pruneEvery = time.Hour

func newWriter(j *Journal) *writer {
	w := &writer{j: j, progress: make(chan struct{}), kick: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

// enqueueFinal queues o to run after the ops of the batch that writes the
// ops queued so far; o replaces a final queued under the same key that
// has not run yet.
func (w *writer) enqueueFinal(key string, o op) {
	w.mu.Lock()
	if w.finals == nil {
		w.finals = map[string]op{}
	}
	w.finals[key] = o
	w.mu.Unlock()
}

func (w *writer) enqueue(o op) {
	w.mu.Lock()
	if len(w.queue) >= w.j.opts.MaxQueue {
		w.queue = w.queue[1:]
		w.dropped++
		w.written++
	}
	w.queue = append(w.queue, o)
	w.queued++
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *writer) run() {
	defer close(w.done)
	backoff := time.Duration(0)
	for {
		var retry <-chan time.Time
		if backoff > 0 {
			retry = time.After(backoff)
		}
		select {
		case <-w.kick:
		case <-retry:
		case <-w.stop:
			w.flush()
			return
		}
		if err := w.flush(); err != nil {
			backoff = min(max(2*backoff, 50*time.Millisecond), 2*time.Second)
		} else {
			backoff = 0
			w.j.bound() // a stat, unless the file outgrew Options.MaxBytes
		}
	}
}

// flush writes everything queued in one transaction. When the file cannot
// be written (locked for too long, a full disk), the batch goes back to
// the front of the queue to be retried.
func (w *writer) flush() error {
	w.mu.Lock()
	batch := w.queue
	w.queue = nil
	finals := w.finals
	w.finals = nil
	prune := time.Since(w.lastPrune) >= pruneEvery
	w.mu.Unlock()
	if len(batch) == 0 && !prune {
		return nil
	}
	var failed []error
	err := w.j.update(func(tx *bolt.Tx) error {
		failed = failed[:0]
		for _, o := range batch {
			if err := o(tx); err != nil {
				failed = append(failed, err)
			}
		}
		for _, o := range finals {
			if err := o(tx); err != nil {
				failed = append(failed, err)
			}
		}
		if prune {
			return pruneEvents(tx, time.Now().Add(-w.j.opts.KeepEvents))
		}
		return nil
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.queue = append(batch, w.queue...)
		for k, o := range finals {
			if _, newer := w.finals[k]; !newer {
				if w.finals == nil {
					w.finals = map[string]op{}
				}
				w.finals[k] = o
			}
		}
		if over := len(w.queue) - w.j.opts.MaxQueue; over > 0 {
			w.queue = w.queue[over:]
			w.dropped += uint64(over)
			w.written += uint64(over)
		}
		w.j.log.Warn("journal: write failed; will retry", "path", w.j.path, "queued", len(w.queue), "err", err.Error())
		return err
	}
	if prune {
		w.lastPrune = time.Now()
	}
	if len(failed) > 0 {
		w.j.log.Warn("journal: writes skipped", "count", len(failed), "err", errors.Join(failed...).Error())
	}
	if w.dropped > 0 {
		w.j.log.Warn("journal: events dropped while the file could not be written", "count", w.dropped)
		w.dropped = 0
	}
	w.written += uint64(len(batch))
	close(w.progress)
	w.progress = make(chan struct{})
	return nil
}

// wait returns once everything queued before the call is written, or ctx
// ends.
func (w *writer) wait(ctx context.Context) error {
	w.mu.Lock()
	target := w.queued
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
	for {
		w.mu.Lock()
		if w.written >= target {
			w.mu.Unlock()
			return nil
		}
		ch := w.progress
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// close writes what is queued (one attempt) and stops the goroutine.
func (w *writer) close() error {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.queue); n > 0 {
		w.j.log.Warn("journal: closing with unwritten events", "count", n)
		return errors.New("journal: closed with unwritten events")
	}
	return nil
}

// Flush waits until everything queued before the call is written, or ctx
// ends.
func (j *Journal) Flush(ctx context.Context) error {
	if j == nil {
		return ErrOff
	}
	return j.w.wait(ctx)
}
