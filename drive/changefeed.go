package drive

import (
	"context"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// MinPoll is the shortest polling interval: 10 reads a second, half of
// the captures a second the supervisor lets reach tmux for one pane, so
// that a waiter leaves room for other readers.
const MinPoll = 100 * time.Millisecond

// Feed tells a waiter when a pane may have changed: from the
// supervisor's watcher events when it can, otherwise by polling. C is
// closed (events mode only) when the watcher connection ends; call Reopen
// then.
type Feed struct {
	srv  *supervisor.Server
	pane tmux.PaneID
	poll time.Duration

	C      <-chan struct{}
	events bool
	stop   func()
}

// WatchPane starts a feed for pane. poll is the polling interval used when
// events are not available (at least MinPoll). Stop it with Close.
func WatchPane(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, poll time.Duration) *Feed {
	f := &Feed{srv: srv, pane: pane, poll: max(poll, MinPoll)}
	f.open(ctx)
	return f
}

// open subscribes to the supervisor's events, or starts polling.
func (f *Feed) open(ctx context.Context) {
	// supervisor.Server.PaneChanges: a channel that receives a value each
	// time the pane may have changed, as its session's watcher connection
	// sees it, and that closes when that connection ends. It fails when no
	// watcher can cover the pane (exec-only mode, tmux 3.2a).
	if ch, stop, err := f.srv.PaneChanges(ctx, f.pane); err == nil {
		f.C, f.stop, f.events = ch, stop, true
		return
	}
	f.C, f.stop = startPolling(f.poll)
	f.events = false
}

// Changes receives a value each time the pane may have changed; it is
// closed when its source ends (call Reopen then).
func (f *Feed) Changes() <-chan struct{} { return f.C }

// Reopen replaces a closed event channel: a new watcher connection if one
// can be had, polling otherwise.
func (f *Feed) Reopen(ctx context.Context) {
	f.Close()
	f.open(ctx)
}

// Close releases the feed.
func (f *Feed) Close() {
	if f.stop != nil {
		f.stop()
		f.stop = nil
	}
}

// Mode says how changes are detected: "events" or "polling".
func (f *Feed) Mode() string {
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
