package capture

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/marks"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// This file is the freshness check: everything that decides whether a
// capture may be answered from cache. Server.Capture asks it for a proof
// (Prove), looks the capture up under that proof (Lookup) and stores what
// tmux returned under it (Store); nothing else reads or fills the cache.
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
//     output, tmux.Capabilities.DeadPaneOutputCrash; Options.MaxWatchers
//     watchers open already, or none allowed), a
//     probe reads the same state plus the window's last activity, in whole
//     seconds. A probe is trusted only if that activity is older than the
//     second in which the probe was sent: later output then always changes
//     it.
//   - Otherwise the capture goes to tmux. So does a capture whose caller
//     knows the pane changed (Request.Changed): it skips the proof,
//     which could not serve it, and is not cached.
//
// Not covered: a command from another tmux client that redraws a pane
// without output and leaves every state field as it was (send-keys -R on
// a screen whose cursor is already at the origin). tmux reports no such
// change anywhere; tmux-mcp's own commands drop the cache (Server.do).

// ErrNotWatched matches PaneChanges errors for a pane that no watcher
// connection can cover: exec-only mode, tmux before 3.3 (no watcher
// connections, tmux.ErrNoWatch), or too many watched sessions. Poll with
// Capture instead.
var ErrNotWatched = errors.New("supervisor: pane not watched")

// errClosed is the error of a dial that ended after supervision did.
var errClosed = errors.New("supervisor: closed")

// errTooManyWatchers: a dial found Options.MaxWatchers connections open or
// under way.
var errTooManyWatchers = errors.New("supervisor: too many watcher connections")

// proof is what the freshness check knows about a pane at the moment a
// capture began. The zero proof proves nothing.
type Proof struct {
	how   string // "watcher", "probe" or "" (none)
	epoch uint64 // watcher connection, for "watcher"
	sig   string // pane state read by the barrier or the probe
	gen   uint64 // the pane's cache generation after the barrier or probe
}

// Proven reports whether p vouches for anything.
func (p Proof) Proven() bool { return p.how != "" }

// Name is the Result.Freshness value for p.
func (p Proof) Name() string {
	if p.how == "" {
		return "none"
	}
	return p.how
}

// Options configure a Freshness. The supervisor fills them in from its
// Config; zero hooks do nothing.
type Options struct {
	// CommandTimeout bounds one barrier, probe or watcher dial.
	CommandTimeout time.Duration
	// ExecOnly: no watcher connections, the probe proves every capture.
	ExecOnly bool
	// MaxWatchers bounds the watcher connections (negative: none).
	MaxWatchers int
	// PauseAfter is the watchers' pause-after age; ManualContinue leaves
	// panes that tmux paused paused (tests only).
	PauseAfter     time.Duration
	ManualContinue bool
	// Slots bounds the commands in flight on the server: the probe takes
	// one (the supervisor's in-flight channel).
	Slots chan struct{}
	// PipeRun runs a pipe feed's pipe-pane command through the
	// supervisor's gate (the feeds are opened on behalf of PaneChanges).
	PipeRun func(ctx context.Context, args ...string) ([]byte, error)
	// OnBarrier receives every barrier or probe round trip; OnStructure
	// every notification of a watcher that windows or panes came, went or
	// moved. Both are event sinks: they must not block.
	OnBarrier   func(transport string, d time.Duration, err error)
	OnStructure func(notification string)
	// Now is the clock of the probe (time.Now).
	Now func() time.Time
}

// Freshness owns the watcher connections, the pane-to-session map, the
// exec-only probe, the pipe feeds and the capture cache of one server.
type Freshness struct {
	cfg    Options
	client *tmux.Client
	cache  *captureCache
	// up mirrors the supervisor's "server is up": watchers are kept only
	// then (SetUp).
	up atomic.Bool

	// pipes feed PaneChanges where no watcher covers a pane.
	pipes *pipeFeeds
	// marks reads the OSC 133 marks in the output the watchers see.
	marks *marks.Tracker

	dials  Coalescer[tmux.SessionID, *watcher]
	probes Coalescer[tmux.PaneID, Proof]
	epochs atomic.Uint64

	barriers atomic.Uint64 // barrier and probe round trips

	mu          sync.Mutex
	watchers    map[tmux.SessionID]*watcher
	dialing     int // watcher dials under way, counted against cfg.MaxWatchers
	paneSession map[tmux.PaneID]tmux.SessionID
	closed      bool
}

// New returns the Freshness of the server client talks to.
func New(opts Options, client *tmux.Client) *Freshness {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.OnBarrier == nil {
		opts.OnBarrier = func(string, time.Duration, error) {}
	}
	if opts.OnStructure == nil {
		opts.OnStructure = func(string) {}
	}
	f := &Freshness{
		cfg: opts, client: client, cache: newCaptureCache(), marks: marks.NewTracker(0),
		watchers: map[tmux.SessionID]*watcher{}, paneSession: map[tmux.PaneID]tmux.SessionID{},
	}
	f.pipes = &pipeFeeds{run: opts.PipeRun, timeout: opts.CommandTimeout, max: maxPipeFeeds, feeds: map[tmux.PaneID]*pipeFeed{}}
	return f
}

// SetUp tells whether the server is up; the supervisor calls it wherever
// its state changes.
func (f *Freshness) SetUp(up bool) { f.up.Store(up) }

// Prove establishes, after the caller's capture began, what can vouch
// for a cached capture of pane: a barrier on the watcher of sess, the
// pane's session, else the probe. The caller passes sess only where a
// watcher may cover the pane (Watchable) and the session is known
// (SessionOf, its own listing otherwise), "" else. It never fails: a zero
// proof sends the capture to tmux.
func (f *Freshness) Prove(ctx context.Context, pane tmux.PaneID, sess tmux.SessionID) Proof {
	if w := f.watcherFor(ctx, sess); w != nil {
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
			return Proof{}
		}
		sig, ok := st[pane]
		if !ok {
			// Not (or no longer) in that session: relearn where it is.
			f.forgetPane(pane)
			return Proof{}
		}
		if w.isPaused(pane) {
			return Proof{}
		}
		return Proof{how: "watcher", epoch: w.epoch, sig: sig, gen: f.cache.generation(pane)}
	}
	return f.probe(ctx, pane)
}

// Check proves pane fresh (Prove) and looks the capture under key up
// under that proof (Lookup): the proof, and the cached capture when the
// proof vouches for one.
func (f *Freshness) Check(ctx context.Context, pane tmux.PaneID, sess tmux.SessionID, key Key) (Proof, Result, bool) {
	p := f.Prove(ctx, pane, sess)
	c, ok := f.Lookup(p, key)
	return p, c, ok
}

// Lookup returns the capture cached under key if p vouches for it.
func (f *Freshness) Lookup(p Proof, key Key) (Result, bool) {
	if !p.Proven() {
		return Result{}, false
	}
	return f.cache.get(key, p)
}

// Store caches c, taken under key after p was established; it is dropped
// if the pane changed since.
func (f *Freshness) Store(p Proof, key Key, c Result) {
	if p.Proven() {
		f.cache.put(key, p, c)
	}
}

// Changed drops every cached capture: tmux-mcp itself ran a command that
// may change what panes show.
func (f *Freshness) Changed() { f.cache.touchAll() }

// watcherFor returns the live watcher of sess, dialling it if needed, or
// nil when there is none to be had. Prove's caller checked Watchable.
func (f *Freshness) watcherFor(ctx context.Context, sess tmux.SessionID) *watcher {
	if sess == "" {
		return nil
	}
	return f.watch(ctx, sess)
}

// Watchable reports whether watcher connections may cover this server's
// panes: not in exec-only mode, some allowed (Config.MaxWatchers), with
// the command connection up, and on a
// tmux that allows them (tmux.Client.CanWatch: from the version the
// client read when it connected, no round trip). Asked before anything
// else, so that where the answer is no a capture or PaneChanges costs
// nothing for a watcher that never comes (no pane listing, no dial).
func (f *Freshness) Watchable(ctx context.Context) bool { return f.unwatchable(ctx) == nil }

// unwatchable returns why no watcher connection may cover this server's
// panes (an error matching ErrNotWatched, and tmux.ErrNoWatch when the
// tmux version is the reason), or nil; see watchable.
func (f *Freshness) unwatchable(ctx context.Context) error {
	if f.cfg.ExecOnly || f.cfg.MaxWatchers < 0 || f.client.Control() == nil {
		return ErrNotWatched
	}
	if err := f.client.CanWatch(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrNotWatched, err)
	}
	return nil
}

// barrierDone counts a barrier or probe round trip and reports it.
func (f *Freshness) barrierDone(transport string, d time.Duration, err error) {
	f.barriers.Add(1)
	f.cfg.OnBarrier(transport, d, err)
}

// SessionOf returns the session pane belongs to as far as the panes
// listed so far say (LearnPanes, NotePane). The answer is a hint: the
// barrier checks it.
func (f *Freshness) SessionOf(pane tmux.PaneID) (tmux.SessionID, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sess, ok := f.paneSession[pane]
	return sess, ok
}

// LearnPanes records which session each pane belongs to (a pane in
// several sessions keeps the first listed).
func (f *Freshness) LearnPanes(panes []tmux.Pane) {
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

// NotePane records the session of one pane read on its own, keeping what
// is known of the others.
func (f *Freshness) NotePane(p tmux.Pane) {
	f.mu.Lock()
	if f.paneSession == nil {
		f.paneSession = map[tmux.PaneID]tmux.SessionID{}
	}
	f.paneSession[p.ID] = p.SessionID
	f.mu.Unlock()
}

func (f *Freshness) forgetPane(pane tmux.PaneID) {
	f.mu.Lock()
	delete(f.paneSession, pane)
	f.mu.Unlock()
}

// Watchers returns the number of live watcher connections.
func (f *Freshness) Watchers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.watchers)
}

// Reset forgets everything about the server (it died): nothing cached is
// served again, and the watchers are taken out; closeAll closes them
// (closing one whose server is stopped takes seconds: the caller decides
// where to wait).
func (f *Freshness) Reset() (closeAll func() []error) {
	f.mu.Lock()
	ws := f.watchers
	f.watchers = map[tmux.SessionID]*watcher{}
	f.paneSession = map[tmux.PaneID]tmux.SessionID{}
	f.mu.Unlock()
	f.cache.touchAll()
	f.marks.Reset()
	return func() []error { return closeWatchers(ws) }
}

// Close ends supervision: no watcher is dialled again; closeAll closes
// the current ones (see Reset).
func (f *Freshness) Close() (closeAll func() []error) {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	return f.Reset()
}

// ClosePipes ends every pipe feed.
func (f *Freshness) ClosePipes() { f.pipes.close() }

// Barriers returns the barrier and probe round trips so far.
func (f *Freshness) Barriers() uint64 { return f.barriers.Load() }

// PipeFeeds returns the pipe feeds open now.
func (f *Freshness) PipeFeeds() int { return f.pipes.count() }

// Generation returns pane's cache generation: it moves whenever a watcher
// sees the pane change (output, mode, pause) or the cache is dropped.
func (f *Freshness) Generation(pane tmux.PaneID) uint64 { return f.cache.generation(pane) }
