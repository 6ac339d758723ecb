package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// This file is the freshness check: everything that decides whether a
// capture may be answered from cache. Server.Capture asks it for a proof
// (prove), looks the capture up under that proof (lookup) and stores what
// tmux returned under it (store); nothing else reads or fills the cache.
//
// The contract: a capture is linearizable. If a capture begins at time t,
// its content includes every byte of pane output that tmux had processed
// before t. It is served from cache only when that is proven:
//
//   - With a watcher connection on the pane's session (control mode, tmux
//     3.3+), a barrier round trip on that connection, sent after the
//     capture began, proves that every %output tmux queued before t has
//     been handled, and each %output starts a new cache generation for its
//     pane. The same round trip reads every pane's state (history size,
//     size, cursor, mode, alternate screen, PID, dead), which catches the
//     changes no notification reports (clear-history by another client).
//     An entry is served only at the generation, under the watcher
//     connection (epoch) and with the state it was stored with; never for
//     a pane that the barrier did not list, or that tmux has paused.
//   - Without one (exec-only mode; tmux before 3.3, where 3.2a crashes
//     when a remain-on-exit pane dies under a control client receiving
//     output, tmux.Capabilities.DeadPaneOutputCrash; Config.MaxWatchers
//     watchers open already, or none allowed), a
//     probe reads the same state plus the window's last activity, in whole
//     seconds. A probe is trusted only if that activity is older than the
//     second in which the probe was sent: later output then always changes
//     it.
//   - Otherwise the capture goes to tmux. So does a capture whose caller
//     knows the pane changed (CaptureRequest.Changed): it skips the proof,
//     which could not serve it, and is not cached.
//
// Not covered: a command from another tmux client that redraws a pane
// without output and leaves every state field as it was (send-keys -R on
// a screen whose cursor is already at the origin). tmux reports no such
// change anywhere; tmux-mcp's own commands drop the cache (Server.Do).

// ErrNotWatched matches PaneChanges errors for a pane that no watcher
// connection can cover: exec-only mode, tmux before 3.3 (no watcher
// connections, tmux.ErrNoWatch), or too many watched sessions. Poll with
// Capture instead.
var ErrNotWatched = errors.New("supervisor: pane not watched")

// errTooManyWatchers: a dial found Config.MaxWatchers connections open or
// under way.
var errTooManyWatchers = errors.New("supervisor: too many watcher connections")

// proof is what the freshness check knows about a pane at the moment a
// capture began. The zero proof proves nothing.
type proof struct {
	how   string // "watcher", "probe" or "" (none)
	epoch uint64 // watcher connection, for "watcher"
	sig   string // pane state read by the barrier or the probe
	gen   uint64 // the pane's cache generation after the barrier or probe
}

func (p proof) proven() bool { return p.how != "" }

// freshnessName is the Capture.Freshness value for p.
func (p proof) freshnessName() string {
	if p.how == "" {
		return "none"
	}
	return p.how
}

// freshness owns the watcher connections, the pane-to-session map, the
// exec-only probe and the capture cache of one server.
type freshness struct {
	cfg    Config
	client *tmux.Client
	cache  *captureCache
	emit   func(Event)
	now    func() time.Time
	// listPanes lists every pane (Server.ListPanes: gated and counted).
	listPanes func(context.Context) ([]tmux.Pane, error)
	// probeRun runs the exec-only probe's command with the in-flight bound.
	probeRun func(ctx context.Context, args ...string) ([]byte, error)
	// up reports whether the server is up (watchers are kept only then).
	up func() bool

	// pipes feed PaneChanges where no watcher covers a pane.
	pipes *pipeFeeds

	dials  coalescer[tmux.SessionID, *watcher]
	probes coalescer[tmux.PaneID, proof]
	epochs atomic.Uint64

	barriers atomic.Uint64 // barrier and probe round trips

	// testNotifyHook, when set (tests only), runs first on every watcher
	// notification.
	testNotifyHook func(tmux.Notification)

	mu          sync.Mutex
	watchers    map[tmux.SessionID]*watcher
	dialing     int // watcher dials under way, counted against cfg.MaxWatchers
	paneSession map[tmux.PaneID]tmux.SessionID
	closed      bool
}

func newFreshness(cfg Config, client *tmux.Client, emit func(Event), now func() time.Time) *freshness {
	return &freshness{
		cfg: cfg, client: client, cache: newCaptureCache(), emit: emit, now: now,
		watchers: map[tmux.SessionID]*watcher{}, paneSession: map[tmux.PaneID]tmux.SessionID{},
	}
}

// prove establishes, after the caller's capture began, what can vouch
// for a cached capture of pane: a barrier on the watcher of its session,
// else the probe. It never fails: a zero proof sends the capture to tmux.
func (f *freshness) prove(ctx context.Context, pane tmux.PaneID) proof {
	if w := f.watcherFor(ctx, pane); w != nil {
		// A capture waits for the barrier at most half its time budget (its
		// deadline, or CommandTimeout), then gives up on the cache and asks
		// tmux: a watcher far behind must not leave it without time.
		budget := f.cfg.CommandTimeout
		if dl, ok := ctx.Deadline(); ok {
			budget = time.Until(dl)
		}
		bctx, cancel := context.WithTimeout(ctx, budget/2)
		st, err := w.barrier(bctx)
		cancel()
		if err != nil {
			return proof{}
		}
		sig, ok := st[pane]
		if !ok {
			// Not (or no longer) in that session: relearn where it is.
			f.forgetPane(pane)
			return proof{}
		}
		if w.isPaused(pane) {
			return proof{}
		}
		return proof{how: "watcher", epoch: w.epoch, sig: sig, gen: f.cache.generation(pane)}
	}
	return f.probe(ctx, pane)
}

// lookup returns the capture cached under key if p vouches for it.
func (f *freshness) lookup(p proof, key captureKey) (Capture, bool) {
	if !p.proven() {
		return Capture{}, false
	}
	return f.cache.get(key, p)
}

// store caches c, taken under key after p was established; it is dropped
// if the pane changed since.
func (f *freshness) store(p proof, key captureKey, c Capture) {
	if p.proven() {
		f.cache.put(key, p, c)
	}
}

// changed drops every cached capture: tmux-mcp itself ran a command that
// may change what panes show.
func (f *freshness) changed() { f.cache.touchAll() }

// watcherFor returns the live watcher of pane's session, dialling it if
// needed, or nil when none can cover the pane.
func (f *freshness) watcherFor(ctx context.Context, pane tmux.PaneID) *watcher {
	if !f.watchable(ctx) {
		return nil
	}
	sess, ok := f.sessionOf(ctx, pane)
	if !ok {
		return nil
	}
	return f.watch(ctx, sess)
}

// watchable reports whether watcher connections may cover this server's
// panes: not in exec-only mode, some allowed (Config.MaxWatchers), with
// the command connection up, and on a
// tmux that allows them (tmux.Client.CanWatch: from the version the
// client read when it connected, no round trip). Asked before anything
// else, so that where the answer is no a capture or PaneChanges costs
// nothing for a watcher that never comes (no pane listing, no dial).
func (f *freshness) watchable(ctx context.Context) bool { return f.unwatchable(ctx) == nil }

// unwatchable returns why no watcher connection may cover this server's
// panes (an error matching ErrNotWatched, and tmux.ErrNoWatch when the
// tmux version is the reason), or nil; see watchable.
func (f *freshness) unwatchable(ctx context.Context) error {
	if f.cfg.ExecOnly || f.cfg.MaxWatchers < 0 || f.client.Control() == nil {
		return ErrNotWatched
	}
	if err := f.client.CanWatch(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrNotWatched, err)
	}
	return nil
}

// watch returns the live watcher of sess, dialling one if there is none
// (concurrent callers share one dial).
func (f *freshness) watch(ctx context.Context, sess tmux.SessionID) *watcher {
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
	w, err := f.dials.do(ctx, sess, true, func() (*watcher, error) {
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
func (f *freshness) dial(ctx context.Context, sess tmux.SessionID) (*watcher, error) {
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
		OnNotify: w.onNotify, PauseAfter: f.cfg.PauseAfter, ManualContinue: f.cfg.manualContinue,
	})
	if err != nil {
		return nil, err
	}
	w.ctrl = ctrl
	f.mu.Lock()
	if f.closed || !f.up() {
		f.mu.Unlock()
		ctrl.Close() //nolint:errcheck // never published
		return nil, ErrClosed
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

// barrierDone counts a barrier or probe round trip and reports it.
func (f *freshness) barrierDone(transport string, d time.Duration, err error) {
	f.barriers.Add(1)
	f.emit(Event{Type: EventBarrier, Transport: transport, Duration: d, ErrClass: tmux.ClassName(err)})
}

// sessionOf returns the session pane belongs to, listing panes once if the
// pane is not known yet. The answer is a hint: the barrier checks it.
func (f *freshness) sessionOf(ctx context.Context, pane tmux.PaneID) (tmux.SessionID, bool) {
	f.mu.Lock()
	sess, ok := f.paneSession[pane]
	f.mu.Unlock()
	if ok {
		return sess, true
	}
	panes, err := f.listPanes(ctx)
	if err != nil {
		return "", false
	}
	for _, p := range panes {
		if p.ID == pane {
			return p.SessionID, true
		}
	}
	return "", false
}

// learnPanes records which session each pane belongs to (a pane in
// several sessions keeps the first listed).
func (f *freshness) learnPanes(panes []tmux.Pane) {
	m := make(map[tmux.PaneID]tmux.SessionID, len(panes))
	for _, p := range panes {
		if _, ok := m[p.ID]; !ok {
			m[p.ID] = p.SessionID
		}
	}
	f.mu.Lock()
	f.paneSession = m
	f.mu.Unlock()
}

// notePane records the session of one pane read on its own, keeping what
// is known of the others.
func (f *freshness) notePane(p tmux.Pane) {
	f.mu.Lock()
	if f.paneSession == nil {
		f.paneSession = map[tmux.PaneID]tmux.SessionID{}
	}
	f.paneSession[p.ID] = p.SessionID
	f.mu.Unlock()
}

func (f *freshness) forgetPane(pane tmux.PaneID) {
	f.mu.Lock()
	delete(f.paneSession, pane)
	f.mu.Unlock()
}

// watcherCount returns the number of live watcher connections.
func (f *freshness) watcherCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.watchers)
}

// reset forgets everything about the server (it died): watchers are
// taken out and returned for the caller to close, and nothing cached is
// served again.
func (f *freshness) reset() map[tmux.SessionID]*watcher {
	f.mu.Lock()
	ws := f.watchers
	f.watchers = map[tmux.SessionID]*watcher{}
	f.paneSession = map[tmux.PaneID]tmux.SessionID{}
	f.mu.Unlock()
	f.cache.touchAll()
	return ws
}

// close ends supervision: no watcher is dialled again; the current ones
// are returned for the caller to close.
func (f *freshness) close() map[tmux.SessionID]*watcher {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	return f.reset()
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

// paneChanges subscribes to pane's changes on the watcher of its session,
// or, where no watcher can cover the pane, on a pipe feed.
func (f *freshness) paneChanges(ctx context.Context, pane tmux.PaneID) (<-chan struct{}, func(), error) {
	if err := f.unwatchable(ctx); err != nil {
		return f.pipeChanges(ctx, pane, err)
	}
	sess, ok := f.sessionOf(ctx, pane)
	if !ok {
		return nil, nil, paneNotFound(pane)
	}
	w := f.watch(ctx, sess)
	if w == nil {
		return f.pipeChanges(ctx, pane, ErrNotWatched)
	}
	// The barrier shows the watcher covers the pane now; everything after
	// it reaches the subscription.
	sub := &paneSub{ch: make(chan struct{}, 1)}
	if !w.subscribe(pane, sub) {
		return nil, nil, ErrNotWatched
	}
	st, err := w.barrier(ctx)
	if err != nil {
		w.unsubscribe(pane, sub)
		return nil, nil, err
	}
	if _, ok := st[pane]; !ok {
		w.unsubscribe(pane, sub)
		f.forgetPane(pane)
		return nil, nil, paneNotFound(pane)
	}
	stopCtx := context.AfterFunc(ctx, func() { w.unsubscribe(pane, sub) })
	stop := func() {
		stopCtx()
		w.unsubscribe(pane, sub)
	}
	return sub.ch, stop, nil
}

// pipeChanges subscribes to pane's changes on a pipe feed; why is the
// reason no watcher covers it, returned when no feed can be had either.
func (f *freshness) pipeChanges(ctx context.Context, pane tmux.PaneID, why error) (<-chan struct{}, func(), error) {
	if f.pipes == nil {
		return nil, nil, why
	}
	ch, stop, err := f.pipes.subscribe(ctx, pane)
	if errors.Is(err, tmux.ErrPaneNotFound) || errors.Is(err, tmux.ErrNotFound) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w (%w)", why, err)
	}
	return ch, stop, nil
}

func paneNotFound(pane tmux.PaneID) error {
	return &tmux.CommandError{Args: []string{"list-panes"}, Stderr: "can't find pane: " + string(pane),
		ExitCode: 1, Class: tmux.ErrPaneNotFound}
}
