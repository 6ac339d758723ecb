package tools

import (
	"context"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// paneChanger is the supervisor's view of pane output: a channel that
// receives a value each time the pane may have changed, as its session's
// watcher connection sees it, and that closes when that connection ends.
// It fails when no watcher can cover the pane (exec-only mode, tmux 3.2a).
type paneChanger interface {
	PaneChanges(ctx context.Context, pane tmux.PaneID) (changes <-chan struct{}, stop func(), err error)
}

// minPoll is the shortest polling interval: 10 reads a second, half of
// the captures a second the supervisor lets reach tmux for one pane, so
// that a waiter leaves room for other readers.
const minPoll = 100 * time.Millisecond

// changeFeed tells a waiter when a pane may have changed: from the
// supervisor's watcher events when it can, otherwise by polling. C is
// closed (events mode only) when the watcher connection ends; call reopen
// then.
type changeFeed struct {
	srv  *supervisor.Server
	pane tmux.PaneID
	poll time.Duration

	C      <-chan struct{}
	events bool
	stop   func()
}

// watchPane starts a feed for pane. poll is the polling interval used when
// events are not available (at least minPoll). Stop it with close.
func watchPane(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, poll time.Duration) *changeFeed {
	f := &changeFeed{srv: srv, pane: pane, poll: max(poll, minPoll)}
	f.open(ctx)
	return f
}

// open subscribes to the supervisor's events, or starts polling.
func (f *changeFeed) open(ctx context.Context) {
	if pc, ok := any(f.srv).(paneChanger); ok {
		if ch, stop, err := pc.PaneChanges(ctx, f.pane); err == nil {
			f.C, f.stop, f.events = ch, stop, true
			return
		}
	}
	f.C, f.stop = startPolling(f.poll)
	f.events = false
}

// reopen replaces a closed event channel: a new watcher connection if one
// can be had, polling otherwise.
func (f *changeFeed) reopen(ctx context.Context) {
	f.close()
	f.open(ctx)
}

// close releases the feed.
func (f *changeFeed) close() {
	if f.stop != nil {
		f.stop()
		f.stop = nil
	}
}

// mode says how changes are detected: "events" or "polling".
func (f *changeFeed) mode() string {
	if f.events {
		return "events"
	}
	return "polling"
}

// startPolling returns a channel that receives a value every interval
// (coalesced, capacity 1), and the function that stops it.
func startPolling(interval time.Duration) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				select {
				case ch <- struct{}{}:
				default:
				}
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return ch, func() { once.Do(func() { close(done) }) }
}
