package journal

import (
	"context"
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Source is what Watch needs of the supervisor. *supervisor.Supervisor
// implements it.
type Source interface {
	Subscribe(fn func(supervisor.Event)) (unsubscribe func())
	Servers() []*supervisor.Server
}

// serverState is what this process knows of one server between
// snapshots.
type serverState struct {
	pid       int  // server PID, from the latest event or snapshot
	down      bool // died and not back yet
	restoring bool // this process is restoring it
	// pending: a structural change waits for its snapshot since first,
	// the latest at last. dirty: a command may have changed what no
	// notification reports (a directory, a title, a program).
	pending     bool
	first, last time.Time
	dirty       bool
	snapped     time.Time // last snapshot attempt
	// settleTries counts the snapshots taken again in a row because a
	// pane was unsettled (see settleLater).
	settleTries int
	// started: the panes that had started in the latest read of the
	// server whose PID is startedPID.
	started    map[tmux.PaneID]bool
	startedPID int
	// cameBack: the agents the latest restore by this process resumed,
	// by restored pane (agentreturn.go).
	cameBack map[tmux.PaneID]AgentOutcome
}

func (j *Journal) state(key string) *serverState {
	st := j.servers[key]
	if st == nil {
		st = &serverState{}
		j.servers[key] = st
	}
	return st
}

func (j *Journal) serverPID(key string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state(key).pid
}

func (j *Journal) setServerPID(key string, pid int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if pid > 0 {
		j.state(key).pid = pid
	}
}

// beginRestore marks key as being restored by this process; false if it
// already is.
func (j *Journal) beginRestore(key string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := j.state(key)
	if st.restoring {
		return false
	}
	st.restoring = true
	return true
}

func (j *Journal) endRestore(key string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.state(key).restoring = false
}

func (j *Journal) isRestoring(key string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state(key).restoring
}

// markDirty asks for a snapshot of key's server at the next interval.
func (j *Journal) markDirty(key string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.state(key).dirty = true
}

// changed records a structural change of key's server at now.
func (st *serverState) changed(now time.Time) {
	if !st.pending {
		st.pending, st.first = true, now
	}
	st.last = now
}

// Watch logs src's events and snapshots every server src supervises: a
// short debounce after each structural change (Debounce, at most
// MaxDelay under a stream of changes), every Interval while a command may
// have changed something, and every Refresh anyway. It never starts a
// server and takes no snapshot of a server that is not up or that this
// process is restoring. stop ends it and waits for a snapshot in progress.
func (j *Journal) Watch(src Source) (stop func()) {
	if j == nil {
		return func() {}
	}
	wake := make(chan struct{}, 1)
	unsubscribe := src.Subscribe(func(e supervisor.Event) {
		if j.observe(e) {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go j.watch(ctx, src, wake, done)
	return func() {
		unsubscribe()
		cancel()
		<-done
	}
}

// observe handles one event on the emitting goroutine: it must not block.
// It reports whether a snapshot may have become due.
func (j *Journal) observe(e supervisor.Event) bool {
	if logged(e.Type) {
		j.Append(e)
	}
	now := time.Now()
	j.mu.Lock()
	defer j.mu.Unlock()
	st := j.state(socketKey(e.Socket))
	switch e.Type {
	case supervisor.EventServerStarted, supervisor.EventServerAdopted, supervisor.EventRestarted, supervisor.EventSocketRecreated:
		if e.PID > 0 {
			st.pid = e.PID
		}
		st.down = false
		st.changed(now)
	case supervisor.EventStructure, supervisor.EventRestored:
		st.changed(now)
	case supervisor.EventServerDied:
		st.down, st.pending, st.dirty = true, false, false
	case supervisor.EventCommand:
		if e.ErrClass != "" || readOnlyCommand[e.Command] {
			return false
		}
		if structuralCommand[e.Command] {
			st.changed(now)
		} else {
			st.dirty = true
			return false
		}
	default:
		return false
	}
	return true
}

// readOnlyCommand lists tmux commands that change nothing a snapshot
// holds.
var readOnlyCommand = map[string]bool{
	"list-sessions": true, "list-windows": true, "list-panes": true, "list-clients": true, "list-buffers": true,
	"display-message": true, "capture-pane": true, "show-options": true, "show-window-options": true,
	"show-environment": true, "show-hooks": true, "has-session": true, "show-buffer": true, "list-keys": true,
	"list-commands": true, "show-messages": true, "server-info": true, "wait-for": true, "delete-buffer": true,
	"refresh-client": true,
}

// structuralCommand lists commands whose effect on the tree a snapshot
// should record soon; notifications do not report them all (a split is
// only a layout change).
var structuralCommand = map[string]bool{
	"new-session": true, "new-window": true, "split-window": true, "kill-session": true, "kill-window": true,
	"kill-pane": true, "break-pane": true, "join-pane": true, "move-pane": true, "move-window": true,
	"swap-pane": true, "swap-window": true, "link-window": true, "unlink-window": true, "select-layout": true,
	"resize-pane": true, "resize-window": true, "rename-session": true, "rename-window": true,
	"select-pane": true, "select-window": true, "respawn-pane": true, "respawn-window": true, "rotate-window": true,
}

// snapshotTimeout bounds one snapshot; a failed one is tried again
// snapshotRetry later.
const (
	snapshotTimeout = 5 * time.Second
	snapshotRetry   = time.Second
)

func (j *Journal) watch(ctx context.Context, src Source, wake <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(j.opts.Interval)
	defer tick.Stop()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		interval := false
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-timer.C:
		case <-tick.C:
			interval = true
		}
		j.snapshotDue(ctx, src, interval)
		timer.Reset(j.nextDue(time.Now()))
	}
}

// snapshotDue snapshots the servers of src that are due and up.
func (j *Journal) snapshotDue(ctx context.Context, src Source, interval bool) {
	now := time.Now()
	for _, srv := range src.Servers() {
		if ctx.Err() != nil {
			return
		}
		if srv.State() != supervisor.StateUp || !j.due(socketKey(srv.Socket()), now, interval) {
			continue
		}
		sctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
		_, err := j.takeSnapshot(sctx, srv)
		cancel()
		if errors.Is(err, ErrSnapshotTooLarge) {
			// Reading it again will not make it smaller: the next
			// change or interval tries again.
			j.log.Warn("journal: snapshot not stored", "err", err.Error())
			continue
		}
		if err != nil {
			// Try again in a second, not at the next interval: the change
			// that made it due is still unrecorded.
			j.mu.Lock()
			j.state(socketKey(srv.Socket())).changed(time.Now().Add(snapshotRetry))
			j.mu.Unlock()
			j.log.Debug("journal: snapshot failed", "socket", srv.Socket().String(), "err", err.Error())
		}
	}
}

// due reports whether key's server should be snapshotted now, and if so
// clears what made it due.
func (j *Journal) due(key string, now time.Time, interval bool) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := j.state(key)
	if st.down || st.restoring {
		return false
	}
	ok := st.pending && (now.Sub(st.last) >= j.opts.Debounce || now.Sub(st.first) >= j.opts.MaxDelay)
	if interval && (st.dirty || now.Sub(st.snapped) >= j.opts.Refresh) {
		ok = true
	}
	if ok {
		st.pending, st.dirty, st.snapped = false, false, now
	}
	return ok
}

// nextDue returns how long until the earliest pending snapshot is due.
func (j *Journal) nextDue(now time.Time) time.Duration {
	j.mu.Lock()
	defer j.mu.Unlock()
	next := time.Hour
	for _, st := range j.servers {
		if !st.pending || st.down || st.restoring {
			continue // a restore ends with a snapshot of its own
		}
		wait := min(st.last.Add(j.opts.Debounce).Sub(now), st.first.Add(j.opts.MaxDelay).Sub(now))
		next = min(next, max(wait, time.Millisecond))
	}
	return next
}
