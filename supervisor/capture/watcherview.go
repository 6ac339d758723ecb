package capture

import "github.com/tmux-mcp/tmux-mcp/tmux"

// Watcher is a read-only view of one watcher connection, for tests and
// diagnostics of the supervisor.
type Watcher struct{ w *watcher }

// Watcher returns the live watcher connection of sess, if there is one.
func (f *Freshness) Watcher(sess tmux.SessionID) (Watcher, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.watchers[sess]
	return Watcher{w}, w != nil
}

// Control returns the watcher's control connection.
func (v Watcher) Control() *tmux.Control { return v.w.ctrl }

// Paused reports whether tmux paused pane's output on this connection
// (pause-after) and has not continued it.
func (v Watcher) Paused(pane tmux.PaneID) bool { return v.w.isPaused(pane) }

// Session returns the session the watcher is attached to.
func (v Watcher) Session() tmux.SessionID { return v.w.session }
