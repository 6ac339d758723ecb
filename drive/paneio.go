package drive

import (
	"context"
	"slices"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Panes is what the calls that type into panes share: one lock per pane,
// so that keystrokes from concurrent calls never interleave, the panes
// already seen ready for keys, and where each pane's output stood at the
// last send (see sendMark), and the prompts a run_command left pending
// (see promptwait.go).
type Panes struct {
	mu      sync.Mutex
	locks   map[PaneKey]*paneLock
	ready   map[readyKey]bool
	marks   map[PaneKey]sendMark
	markSeq uint64
	prompts map[readyKey]promptState
}

// PaneKey names a pane across servers.
type PaneKey struct {
	Socket tmux.Socket
	Pane   tmux.PaneID
}

// readyKey names one process in a pane: a respawned pane, or a pane ID
// reused by a restarted server, is new again.
type readyKey struct {
	PaneKey
	pid int
}

// paneLock is a mutex that waiters can give up on; refs counts holders and
// waiters, so that unused locks are dropped.
type paneLock struct {
	ch   chan struct{}
	refs int
}

// maxReady bounds the ready set; past it the set starts over (at worst a
// pane is checked once more).
const maxReady = 4096

// NewPanes returns an empty Panes; the calls of one catalog share one.
func NewPanes() *Panes {
	return &Panes{locks: map[PaneKey]*paneLock{}, ready: map[readyKey]bool{}, marks: map[PaneKey]sendMark{}}
}

// Lock takes the locks of panes on sock, in a fixed order so that two
// calls locking several panes cannot deadlock, and returns the function
// that releases them. It fails with ctx's error if ctx ends first.
func (io *Panes) Lock(ctx context.Context, sock tmux.Socket, panes ...tmux.PaneID) (unlock func(), err error) {
	panes = slices.Clone(panes)
	slices.Sort(panes)
	panes = slices.Compact(panes)
	held := make([]*paneLock, 0, len(panes))
	release := func() {
		for i := len(held) - 1; i >= 0; i-- {
			<-held[i].ch
		}
		io.mu.Lock()
		for _, p := range panes {
			k := PaneKey{sock, p}
			if l := io.locks[k]; l != nil {
				if l.refs--; l.refs == 0 {
					delete(io.locks, k)
				}
			}
		}
		io.mu.Unlock()
	}
	io.mu.Lock()
	ls := make([]*paneLock, len(panes))
	for i, p := range panes {
		k := PaneKey{sock, p}
		l := io.locks[k]
		if l == nil {
			l = &paneLock{ch: make(chan struct{}, 1)}
			io.locks[k] = l
		}
		l.refs++
		ls[i] = l
	}
	io.mu.Unlock()
	for _, l := range ls {
		select {
		case l.ch <- struct{}{}:
			held = append(held, l)
		case <-ctx.Done():
			release()
			return nil, ctx.Err()
		}
	}
	return release, nil
}

func (io *Panes) isReady(k readyKey) bool {
	io.mu.Lock()
	defer io.mu.Unlock()
	return io.ready[k]
}

func (io *Panes) markReady(k readyKey) {
	io.mu.Lock()
	defer io.mu.Unlock()
	if len(io.ready) >= maxReady {
		clear(io.ready)
	}
	io.ready[k] = true
}
