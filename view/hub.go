package view

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// Options tune a Hub. Zero values take the defaults.
type Options struct {
	// FrameInterval is the shortest time between two frames of one pane
	// (default 100ms: at most 10 frames a second per pane, half of the
	// captures a second the supervisor lets reach tmux for one pane).
	FrameInterval time.Duration
	// OverviewInterval is how often the overview is read again when no
	// structure event asks sooner (default 1s): agent states, jobs and
	// health change without one.
	OverviewInterval time.Duration
	// PollInterval is how often a pane no watcher covers is captured
	// (default 250ms).
	PollInterval time.Duration
	// Linger keeps the hub running that long after the last browser left,
	// so that a reload finds it warm (default 5s).
	Linger time.Duration
	// Input lets the page type into panes (through the Source's Typist).
	Input bool
	// Logger gets what went wrong, never pane text; nil discards.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.FrameInterval, 100*time.Millisecond)
	def(&o.OverviewInterval, time.Second)
	def(&o.PollInterval, 250*time.Millisecond)
	def(&o.Linger, 5*time.Second)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Structure is what a Source may offer besides: a call each time the
// servers' tree or a server's life changed, so the overview is read at
// once rather than on its next tick.
type Structure interface {
	OnStructure(fn func()) (stop func())
}

// clientBuffer bounds the messages queued for one browser; one that falls
// this far behind is disconnected and reconnects to fresh keyframes.
const clientBuffer = 512

// Hub reads the Source while at least one browser watches and fans the
// overview and the frames out to every browser.
type Hub struct {
	src Source
	o   Options

	mu      sync.Mutex
	clients map[*client]struct{}
	// running says a loop runs (gen is its generation); done closes when
	// the last loop ended.
	running bool
	gen     int
	done    chan struct{}
	// overview is the last overview message; screens the last screen of
	// each watched pane (the keyframes of a browser that joins).
	overview []byte
	ovSum    [32]byte
	screens  map[paneKey]Screen
	wake     chan struct{}
	closed   bool
}

type paneKey struct{ server, pane string }

type client struct {
	ch   chan []byte
	gone bool
}

// NewHub returns a hub over src; it starts reading when a browser joins.
func NewHub(src Source, o Options) *Hub {
	done := make(chan struct{})
	close(done)
	return &Hub{src: src, o: o.withDefaults(), clients: map[*client]struct{}{}, screens: map[paneKey]Screen{},
		done: done, wake: make(chan struct{}, 1)}
}

// join registers a browser and returns its queue, filled with the current
// overview and a keyframe of every pane known.
func (h *Hub) join() *client {
	c := &client{ch: make(chan []byte, clientBuffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		c.gone = true
		close(c.ch)
		return c
	}
	h.clients[c] = struct{}{}
	if h.overview != nil {
		c.ch <- h.overview
		for k, s := range h.screens {
			if len(c.ch) < cap(c.ch)-1 {
				c.ch <- frameMessage(k, s, nil, true, 0)
			}
		}
	}
	if !h.running {
		h.running = true
		h.gen++
		prev, done := h.done, make(chan struct{})
		h.done = done
		go h.run(h.gen, prev, done)
	}
	return c
}

// close ends every browser's stream (their queues close) and refuses new
// ones: the HTTP server is shutting down, and waits for streams to end.
func (h *Hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.clients {
		c.gone = true
		close(c.ch)
		delete(h.clients, c)
	}
}

// leave unregisters a browser.
func (h *Hub) leave(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.clients, c)
}

// broadcastLocked queues msg for every browser; one whose queue is full
// is dropped (its stream ends; the browser reconnects). h.mu is held.
func (h *Hub) broadcastLocked(msg []byte) {
	for c := range h.clients {
		select {
		case c.ch <- msg:
		default:
			c.gone = true
			close(c.ch)
			delete(h.clients, c)
		}
	}
}

// run is one generation of the reading loop: it waits for the previous
// one to end, then reads the overview on each tick or structure event
// and keeps a watcher per pane, until no browser has watched for Linger.
func (h *Hub) run(gen int, prev <-chan struct{}, done chan struct{}) {
	defer close(done)
	<-prev
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	watches := map[paneKey]context.CancelFunc{}
	defer func() {
		cancel()
		wg.Wait()
		h.mu.Lock()
		if h.gen == gen {
			h.overview, h.ovSum, h.screens = nil, [32]byte{}, map[paneKey]Screen{}
		}
		h.mu.Unlock()
	}()
	if st, ok := h.src.(Structure); ok {
		stop := st.OnStructure(func() {
			select {
			case h.wake <- struct{}{}:
			default:
			}
		})
		defer stop()
	}
	tick := time.NewTicker(h.o.OverviewInterval)
	defer tick.Stop()
	var idleSince time.Time
	for {
		h.refresh(ctx, gen, watches, &wg)
		select {
		case <-tick.C:
		case <-h.wake:
			// At once: a death must show before the restart ends it. A
			// burst of events is at most two reads (wake holds one).
		}
		h.mu.Lock()
		switch {
		case len(h.clients) > 0:
			idleSince = time.Time{}
		case idleSince.IsZero():
			idleSince = time.Now()
		case time.Since(idleSince) >= h.o.Linger:
			h.running = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
	}
}

// refresh reads the overview, sends it when it changed, and starts or
// stops pane watchers to match it.
func (h *Hub) refresh(ctx context.Context, gen int, watches map[paneKey]context.CancelFunc, wg *sync.WaitGroup) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	ov, err := h.src.Overview(rctx)
	cancel()
	if err != nil {
		h.o.Logger.Warn("view: overview", "err", err)
		return
	}
	ov.Input = h.o.Input
	want := map[paneKey]bool{}
	for _, s := range ov.Servers {
		for _, se := range s.Sessions {
			for _, w := range se.Windows {
				for _, p := range w.Panes {
					want[paneKey{s.Key, p.ID}] = true
				}
			}
		}
	}
	for k, stop := range watches {
		if !want[k] {
			stop()
			delete(watches, k)
			h.mu.Lock()
			delete(h.screens, k)
			h.mu.Unlock()
		}
	}
	for k := range want {
		if _, ok := watches[k]; !ok {
			pctx, stop := context.WithCancel(ctx)
			watches[k] = stop
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.watchPane(pctx, gen, k)
			}()
		}
	}
	data, err := json.Marshal(ov)
	if err != nil {
		h.o.Logger.Warn("view: overview", "err", err)
		return
	}
	// An unchanged overview is not sent again.
	sum := sha256.Sum256(data)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gen != gen || sum == h.ovSum {
		return
	}
	h.ovSum = sum
	h.overview = sseMessage("overview", data)
	h.broadcastLocked(h.overview)
}

// watchPane sends pane's frames: one at once, then one after each change
// the watcher reports (or each poll without one), at most one per
// FrameInterval.
func (h *Hub) watchPane(ctx context.Context, gen int, k paneKey) {
	var prev *Screen
	var last time.Time
	for ctx.Err() == nil {
		changes, stop, err := h.src.Changes(ctx, k.server, k.pane)
		var poll <-chan time.Time
		if err != nil {
			t := time.NewTicker(h.o.PollInterval)
			poll, stop = t.C, t.Stop
		}
		// A capture that failed (a pane still being restored, a rate
		// limit) is tried again: the pane may never print again.
		retry := time.NewTimer(h.o.PollInterval)
		ok := false
		prev, ok = h.frame(ctx, gen, k, prev)
		if ok {
			retry.Stop()
		}
		last = time.Now()
	loop:
		for {
			select {
			case <-ctx.Done():
				break loop
			case _, open := <-changes:
				if !open {
					break loop
				}
			case <-poll:
			case <-retry.C:
			}
			if wait := h.o.FrameInterval - time.Since(last); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-ctx.Done():
					t.Stop()
					break loop
				case <-t.C:
				}
				// The capture below covers what arrived meanwhile.
				select {
				case <-changes:
				default:
				}
			}
			if prev, ok = h.frame(ctx, gen, k, prev); !ok {
				retry.Reset(h.o.PollInterval)
			}
			last = time.Now()
		}
		retry.Stop()
		stop()
		if ctx.Err() == nil {
			// The watcher ended (the server died, or its connection was
			// replaced): ask again after a breath.
			t := time.NewTimer(h.o.PollInterval)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
		}
	}
}

// frame captures pane and sends the rows that changed since prev (all of
// them when prev is nil or the size changed); it returns the screen now
// known, and whether the capture worked.
func (h *Hub) frame(ctx context.Context, gen int, k paneKey, prev *Screen) (*Screen, bool) {
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	s, err := h.src.Screen(cctx, k.server, k.pane)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			h.o.Logger.Debug("view: capture", "server", k.server, "pane", k.pane, "err", err)
		}
		return prev, false
	}
	full := prev == nil || prev.Width != s.Width || prev.Height != s.Height || len(prev.Rows) != len(s.Rows)
	var changed []int
	scroll := 0
	if !full {
		scroll = scrolled(prev.Rows, s.Rows)
		base := prev.Rows
		if scroll > 0 {
			base = append(slices.Clone(prev.Rows[scroll:]), make([]string, scroll)...)
		}
		for i := range s.Rows {
			if s.Rows[i] != base[i] {
				changed = append(changed, i)
			}
		}
		if scroll == 0 && len(changed) == 0 && s.CursorX == prev.CursorX && s.CursorY == prev.CursorY && s.CursorVisible == prev.CursorVisible {
			return &s, true
		}
	}
	msg := frameMessage(k, s, changed, full, scroll)
	h.mu.Lock()
	if h.gen == gen && ctx.Err() == nil {
		h.screens[k] = s
		h.broadcastLocked(msg)
	}
	h.mu.Unlock()
	return &s, true
}

// frame is the JSON of a frame message: rows are [index, text] pairs.
type frame struct {
	Server string `json:"s"`
	Pane   string `json:"p"`
	Full   bool   `json:"full,omitempty"`
	Width  int    `json:"w"`
	Height int    `json:"h"`
	CX     int    `json:"cx"`
	CY     int    `json:"cy"`
	CV     bool   `json:"cv"`
	// Scroll is how many rows the screen moved up since the last frame:
	// the browser moves its rows, and only the rows new after that move
	// travel.
	Scroll int      `json:"sc,omitempty"`
	Rows   [][2]any `json:"rows"`
}

// frameMessage encodes the rows of s named by changed (every row when
// full), after a scroll of that many rows.
func frameMessage(k paneKey, s Screen, changed []int, full bool, scroll int) []byte {
	f := frame{Server: k.server, Pane: k.pane, Full: full, Width: s.Width, Height: s.Height,
		CX: s.CursorX, CY: s.CursorY, CV: s.CursorVisible, Scroll: scroll, Rows: [][2]any{}}
	if full {
		for i, r := range s.Rows {
			f.Rows = append(f.Rows, [2]any{i, r})
		}
	} else {
		for _, i := range changed {
			f.Rows = append(f.Rows, [2]any{i, s.Rows[i]})
		}
	}
	data, _ := json.Marshal(f)
	return sseMessage("frame", data)
}

// minScrollMatch is how many rows must match for a change to be taken
// for a scroll.
const minScrollMatch = 2

// scrolled returns by how many rows cur is prev moved up, or 0: the rows
// that stayed match exactly from the top (at least minScrollMatch of them,
// not all blank), but for the last two, where the cursor's line was
// written meanwhile. The smallest such move wins. A wrong guess costs
// bytes, never correctness: the rows that differ after the move are sent.
func scrolled(prev, cur []string) int {
	n := len(cur)
	if len(prev) != n {
		return 0
	}
	for k := 1; k <= n-minScrollMatch; k++ {
		matched, blank := 0, true
		for i := 0; i+k < n && prev[i+k] == cur[i]; i++ {
			matched++
			if cur[i] != "" {
				blank = false
			}
		}
		if matched >= minScrollMatch && matched >= n-k-2 && !blank {
			return k
		}
	}
	return 0
}

// sseMessage is one server-sent event.
func sseMessage(event string, data []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(event) + len(data) + 16)
	b.WriteString("event: ")
	b.WriteString(event)
	b.WriteString("\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	return b.Bytes()
}
