package capture

import (
	"context"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Watcher connections are dialled on first use, one per watched session,
// and kept until their server or connection dies.

// watch returns the live watcher of sess, dialling one if there is none
// (concurrent callers share one dial).
func (f *Freshness) watch(ctx context.Context, sess tmux.SessionID) *watcher {
	f.mu.Lock()
	w, n, closed := f.watchers[sess], len(f.watchers), f.closed
	f.mu.Unlock()
	if closed {
		return nil
	}
	if w != nil && w.ctrl.Err() == nil {
		return w
	}
	if w == nil && n >= f.cfg.MaxWatchers {
		return nil
	}
	w, err := f.dials.Do(ctx, sess, true, func() (*watcher, error) {
		dctx, cancel := context.WithTimeout(context.Background(), f.cfg.CommandTimeout)
		defer cancel()
		return f.dial(dctx, sess)
	})
	if err != nil {
		return nil
	}
	return w
}

// dial opens a watcher connection on sess and publishes it.
func (f *Freshness) dial(ctx context.Context, sess tmux.SessionID) (*watcher, error) {
	f.mu.Lock()
	if old := f.watchers[sess]; old != nil && old.ctrl.Err() == nil {
		f.mu.Unlock()
		return old, nil
	}
	// The cap counts dials under way: concurrent first captures of many
	// sessions would each see room and all dial (62 watchers were seen
	// with 64 agents starting together).
	if _, replacing := f.watchers[sess]; !replacing && len(f.watchers)+f.dialing >= f.cfg.MaxWatchers {
		f.mu.Unlock()
		return nil, errTooManyWatchers
	}
	f.dialing++
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.dialing--
		f.mu.Unlock()
	}()
	w := &watcher{f: f, session: sess, epoch: f.epochs.Add(1),
		paused: map[tmux.PaneID]bool{}, subs: map[tmux.PaneID]map[*paneSub]struct{}{}}
	ctrl, err := f.client.Watch(ctx, sess, tmux.WatchOptions{
		OnNotify: w.onNotify, PauseAfter: f.cfg.PauseAfter, ManualContinue: f.cfg.ManualContinue,
	})
	if err != nil {
		return nil, err
	}
	w.ctrl = ctrl
	f.mu.Lock()
	if f.closed || !f.up.Load() {
		f.mu.Unlock()
		ctrl.Close() //nolint:errcheck // never published
		return nil, errClosed
	}
	f.watchers[sess] = w
	f.mu.Unlock()
	go func() {
		<-ctrl.Done()
		f.mu.Lock()
		if f.watchers[sess] == w {
			delete(f.watchers, sess)
		}
		f.mu.Unlock()
		w.end()
		ctrl.Close() //nolint:errcheck // already ended
	}()
	return w, nil
}

// closeWatchers closes watcher connections in parallel: closing one whose
// server is stopped takes seconds, and a server may have many.
func closeWatchers(ws map[tmux.SessionID]*watcher) []error {
	errs := make([]error, 0, len(ws))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := w.ctrl.Close()
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return errs
}
