package capture

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// watcher is a control-mode connection attached to one session. tmux sends
// it %output for every pane of the session's windows, and answers a
// command sent on it only after every %output it queued before that
// command arrived; the reader goroutine handles notifications before it
// hands a reply back. A round trip on the watcher (a barrier) therefore
// proves that every byte tmux had read from the session's panes before
// the barrier was sent has been seen here.
type watcher struct {
	f       *Freshness
	session tmux.SessionID
	// epoch is unique per connection: cached captures are served only
	// through the connection that watched the pane when they were taken.
	epoch uint64
	ctrl  *tmux.Control // set once dialled, before the watcher is published

	barriers Coalescer[struct{}, paneStates]

	mu     sync.Mutex
	paused map[tmux.PaneID]bool
	subs   map[tmux.PaneID]map[*paneSub]struct{}
	ended  bool
}

// paneStates maps each pane of a watched session to its state signature,
// as read by a barrier.
type paneStates map[tmux.PaneID]string

// stateFields is what a barrier reads of every pane of the session: state
// that changes what a capture shows without any %output (clear-history
// shrinks the history, a resize reflows lines, respawn-pane starts a new
// process, a pane that dies with remain-on-exit gets a status line, copy
// mode and the alternate screen change what is drawn). Each is cheap to
// expand: none walks the history.
var stateFields = []string{"history_size", "pane_width", "pane_height", "cursor_x", "cursor_y",
	"pane_in_mode", "alternate_on", "pane_pid", "pane_dead"}

// barrierFormat lists the session's panes with their state, one record
// per pane.
var barrierFormat = tmux.RecordFormat(append([]string{"pane_id"}, stateFields...)...)

// stateSig is the signature of a pane's state: its fields, in order.
func stateSig(fields []string) string { return strings.Join(fields, ",") }

// barrier proves that every %output tmux queued for this watcher before
// the call began has been handled, and returns the state of the session's
// panes read in the same round trip. Concurrent callers share round trips
// (one in flight, one queued; never one sent before the caller arrived).
// It waits at most until ctx ends.
func (w *watcher) barrier(ctx context.Context) (paneStates, error) {
	return w.barriers.Do(ctx, struct{}{}, false, func() (paneStates, error) {
		bctx, cancel := context.WithTimeout(context.Background(), w.f.cfg.CommandTimeout)
		defer cancel()
		start := time.Now()
		out, err := w.ctrl.Run(bctx, "list-panes", "-s", "-t", string(w.session), "-F", barrierFormat)
		w.f.barrierDone("control", time.Since(start), err)
		if err != nil {
			return nil, err
		}
		recs, err := tmux.ParseRecords(out, 1+len(stateFields))
		if err != nil {
			return nil, err
		}
		st := make(paneStates, len(recs))
		for _, r := range recs {
			st[tmux.PaneID(r[0])] = stateSig(r[1:])
		}
		return st, nil
	})
}

// onNotify runs on the watcher's reader goroutine, before any later
// command reply on this connection is handed back.
func (w *watcher) onNotify(n tmux.Notification) {
	switch n.Type {
	case tmux.NotifyOutput, tmux.NotifyExtendedOutput:
		w.f.marks.Feed(string(n.Pane), w.epoch, n.Data, time.Now())
		w.f.cache.touch(n.Pane)
		w.signal(n.Pane)
	case tmux.NotifyPaneModeChanged:
		w.f.cache.touch(n.Pane)
		w.signal(n.Pane)
	case tmux.NotifyPause, tmux.NotifyContinue:
		// Output is dropped while a pane is paused: nothing cached for it
		// may be served until it is continued, and what was cached before
		// the pause may be older than what tmux shows after it.
		w.mu.Lock()
		if n.Type == tmux.NotifyPause {
			w.paused[n.Pane] = true
			w.f.marks.Gap(string(n.Pane))
		} else {
			delete(w.paused, n.Pane)
		}
		w.mu.Unlock()
		w.f.cache.touch(n.Pane)
		w.signal(n.Pane)
	case tmux.NotifyLayoutChange, tmux.NotifyWindowAdd, tmux.NotifyWindowClose, tmux.NotifyWindowPaneChanged,
		tmux.NotifySessionWindowChanged:
		// Panes came, went, moved or were resized: the barrier's state
		// check covers what this means for captures, and subscribers look.
		w.signalAll()
		if n.Type == tmux.NotifyLayoutChange {
			// A split or a resize by another client reaches only the
			// watchers as a layout change: the journal must hear of it.
			w.f.cfg.OnStructure(string(n.Type))
		}
	}
}

// isPaused reports whether tmux has paused pane's output to this watcher.
func (w *watcher) isPaused(pane tmux.PaneID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.paused[pane]
}

// paneSub is one PaneChanges subscription.
type paneSub struct {
	ch   chan struct{}
	once sync.Once
}

func (p *paneSub) close() { p.once.Do(func() { close(p.ch) }) }

// subscribe registers sub for pane; it reports false if the watcher has
// already ended.
func (w *watcher) subscribe(pane tmux.PaneID, sub *paneSub) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return false
	}
	if w.subs[pane] == nil {
		w.subs[pane] = map[*paneSub]struct{}{}
	}
	w.subs[pane][sub] = struct{}{}
	return true
}

func (w *watcher) unsubscribe(pane tmux.PaneID, sub *paneSub) {
	w.mu.Lock()
	delete(w.subs[pane], sub)
	if len(w.subs[pane]) == 0 {
		delete(w.subs, pane)
	}
	w.mu.Unlock()
	sub.close()
}

// signal wakes pane's subscribers without blocking.
func (w *watcher) signal(pane tmux.PaneID) {
	w.mu.Lock()
	for sub := range w.subs[pane] {
		select {
		case sub.ch <- struct{}{}:
		default:
		}
	}
	w.mu.Unlock()
}

func (w *watcher) signalAll() {
	w.mu.Lock()
	for _, subs := range w.subs {
		for sub := range subs {
			select {
			case sub.ch <- struct{}{}:
			default:
			}
		}
	}
	w.mu.Unlock()
}

// end marks the watcher ended and closes its subscriptions.
func (w *watcher) end() {
	w.mu.Lock()
	w.ended = true
	w.f.marks.Release(w.epoch)
	subs := w.subs
	w.subs = map[tmux.PaneID]map[*paneSub]struct{}{}
	w.mu.Unlock()
	for _, m := range subs {
		for sub := range m {
			sub.close()
		}
	}
}
