package tools

import (
	"context"
	"slices"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// paneIO is what the tools that type into panes share: one lock per pane,
// so that keystrokes from concurrent calls never interleave, the panes
// already seen ready for keys, and where each pane's output stood at the
// last send (see sendMark), and the prompts a run_command left pending
// (see promptwait.go).
type paneIO struct {
	mu      sync.Mutex
	locks   map[paneKey]*paneLock
	ready   map[readyKey]bool
	marks   map[paneKey]sendMark
	markSeq uint64
	prompts map[readyKey]promptState
}

// paneKey names a pane across servers.
type paneKey struct {
	sock tmux.Socket
	pane tmux.PaneID
}

// readyKey names one process in a pane: a respawned pane, or a pane ID
// reused by a restarted server, is new again.
type readyKey struct {
	paneKey
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

func newPaneIO() *paneIO {
	return &paneIO{locks: map[paneKey]*paneLock{}, ready: map[readyKey]bool{}, marks: map[paneKey]sendMark{}}
}

// lock takes the locks of panes on sock, in a fixed order so that two
// calls locking several panes cannot deadlock, and returns the function
// that releases them. It fails with ctx's error if ctx ends first.
func (io *paneIO) lock(ctx context.Context, sock tmux.Socket, panes ...tmux.PaneID) (unlock func(), err error) {
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
			k := paneKey{sock, p}
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
		k := paneKey{sock, p}
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

func (io *paneIO) isReady(k readyKey) bool {
	io.mu.Lock()
	defer io.mu.Unlock()
	return io.ready[k]
}

func (io *paneIO) markReady(k readyKey) {
	io.mu.Lock()
	defer io.mu.Unlock()
	if len(io.ready) >= maxReady {
		clear(io.ready)
	}
	io.ready[k] = true
}
