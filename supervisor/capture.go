package supervisor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// CaptureRequest asks for a pane's contents.
type CaptureRequest struct {
	Pane tmux.PaneID
	// Start and End are line numbers as capture-pane takes them: 0 is the
	// first visible line, negative numbers reach into history. Nil Start is
	// the top of the visible screen; nil End is its bottom.
	Start, End *int
	// FullHistory asks for the whole history (-S -); it is capped like any
	// other range, keeping the tail.
	FullHistory bool
	// MaxLines and MaxBytes cap the result (0: the configured defaults);
	// they may not exceed the configured ceilings.
	MaxLines, MaxBytes int
	Join, Escape       bool
}

// Capture is a pane's contents and how they were obtained.
type Capture struct {
	Content        []byte `json:"-"`
	Lines          int    `json:"lines"`
	Truncated      bool   `json:"truncated"`
	TruncatedLines int    `json:"truncated_lines,omitempty"`
	TruncatedBytes int    `json:"truncated_bytes,omitempty"`
	// Cached: served from cache, without a tmux call.
	Cached bool `json:"cached"`
	// Freshness says how the cache knows the pane did not change: "watcher"
	// (a control-mode connection saw no %output since the capture), "probe"
	// (exec-only: history size, cursor, size, PID and window activity
	// unchanged), or "none" (not cacheable).
	Freshness string `json:"freshness"`
	// SHA256 is the hex digest of Content (first 16 bytes), so callers can
	// tell whether two captures differ without comparing them.
	SHA256 string `json:"sha256"`
}

// ErrInvalidArgument matches requests the supervisor rejects before any
// tmux call (a malformed pane ID, caps above the ceilings); the message
// names the argument and the accepted values.
var ErrInvalidArgument = errors.New("invalid argument")

// watcher is a control-mode connection attached to one session, tracking
// pane output so unchanged panes can be served from cache.
type watcher struct {
	ctrl    *tmux.Control
	session tmux.SessionID
}

// maxWatchers bounds the watcher connections per server; sessions beyond it
// fall back to the probe.
const maxWatchers = 32

// Capture returns a pane's contents, capped, from cache when the pane has
// not changed since an identical capture. Identical concurrent captures
// share one tmux call. A capture beyond the pane's token bucket is refused
// with a RateLimitedError unless the cache can answer.
func (s *Server) Capture(ctx context.Context, req CaptureRequest) (Capture, error) {
	if !validPaneID(req.Pane) {
		return Capture{}, fmt.Errorf("%w: pane must be a pane ID like %%3, got %q", ErrInvalidArgument, req.Pane)
	}
	plan, err := planCapture(req, s.cfg, 0)
	if err != nil {
		return Capture{}, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	if err := s.gate(ctx); err != nil {
		return Capture{}, err
	}
	key := captureKey{pane: req.Pane, start: plan.Start, end: plan.End, join: req.Join, escape: req.Escape,
		maxLines: plan.MaxLines, maxBytes: plan.MaxBytes}

	freshness := "none"
	if s.watch(ctx, req.Pane) {
		freshness = "watcher"
	} else if sig, ok := s.probe(ctx, req.Pane); ok {
		freshness = "probe"
		key.probe = sig
	}
	if freshness != "none" {
		if c, ok := s.cache.get(key); ok {
			return s.hit(ctx, req.Pane, c), nil
		}
	}
	s.flightWaiters.Add(1)
	defer s.flightWaiters.Add(-1)
	// The shared capture must not die with whichever caller started it, and
	// each caller stops waiting at its own deadline. The generation in the
	// flight key keeps a capture asked for after a change (output, a
	// command through Do) from sharing a call made before it.
	gen := s.cache.generation(req.Pane)
	flightKey := fmt.Sprintf("%s#%d", key.String(), gen)
	ch := s.flight.DoChan(flightKey, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.CommandTimeout)
		defer cancel()
		// Over the pane's bucket: wait for a token if one comes within
		// RateWait (the cache could not answer, or we would not be here),
		// otherwise refuse with the time to wait.
		if ok, wait := s.paneRate.reserve(string(req.Pane), s.cfg.RateWait); !ok {
			s.rateLimited.Add(1)
			s.bus.emit(Event{Type: EventRateLimited, Socket: s.sock, Pane: req.Pane})
			return Capture{}, &RateLimitedError{RetryAfter: wait, Scope: "pane " + string(req.Pane)}
		} else if wait > 0 {
			if err := sleepCtx(ctx, wait); err != nil {
				return Capture{}, err
			}
		}
		out, err := s.call(ctx, "capture-pane", func(ctx context.Context, _ tmux.Transport) ([]byte, error) {
			return s.client.Capture(ctx, tmux.CaptureOptions{Target: string(req.Pane), Start: plan.Start, End: plan.End,
				Join: req.Join, Escape: req.Escape})
		})
		if err != nil {
			return Capture{}, err
		}
		s.tmuxReads.Add(1)
		kept, lines, bytes := truncateTail(out, plan.MaxLines, plan.MaxBytes)
		c := Capture{Content: kept, Lines: strings.Count(string(kept), "\n"), Truncated: lines > 0 || bytes > 0,
			TruncatedLines: lines, TruncatedBytes: bytes, Freshness: freshness, SHA256: digest(kept)}
		if freshness != "none" {
			s.cache.put(key, gen, c)
		}
		return c, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return Capture{}, r.Err
		}
		return r.Val.(Capture), nil
	case <-ctx.Done():
		return Capture{}, queueError("capture-pane", ctx.Err())
	}
}

func (s *Server) hit(ctx context.Context, pane tmux.PaneID, c Capture) Capture {
	s.cacheHits.Add(1)
	_, span := s.tracer.Start(ctx, "tmux capture-pane")
	span.SetAttributes(cacheHitAttrs...)
	span.End()
	s.bus.emit(Event{Type: EventCacheHit, Socket: s.sock, Pane: pane})
	c.Cached = true
	return c
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

func validPaneID(p tmux.PaneID) bool {
	if len(p) < 2 || p[0] != '%' {
		return false
	}
	_, err := strconv.Atoi(string(p[1:]))
	return err == nil
}

// watch makes sure a watcher connection covers pane's session and reports
// whether one does (and has been up since before this call).
func (s *Server) watch(ctx context.Context, pane tmux.PaneID) bool {
	if s.cfg.ExecOnly || s.client.Control() == nil {
		return false
	}
	sess, ok := s.sessionOf(ctx, pane)
	if !ok {
		return false
	}
	s.mu.Lock()
	w := s.watchers[sess]
	n := len(s.watchers)
	s.mu.Unlock()
	if w != nil && w.ctrl.Err() == nil {
		return true
	}
	if n >= maxWatchers {
		return false
	}
	ctrl, err := s.client.Watch(ctx, sess, s.onWatchNotify)
	if err != nil {
		return false
	}
	s.mu.Lock()
	if s.state != StateUp {
		s.mu.Unlock()
		ctrl.Close()
		return false
	}
	if old := s.watchers[sess]; old != nil && old.ctrl.Err() == nil {
		s.mu.Unlock()
		ctrl.Close()
		return true
	}
	s.watchers[sess] = &watcher{ctrl: ctrl, session: sess}
	s.mu.Unlock()
	// Until this watcher is up, output was not tracked: nothing cached for
	// its panes may be trusted.
	s.cache.touchAll()
	go func() {
		<-ctrl.Done()
		s.mu.Lock()
		if w := s.watchers[sess]; w != nil && w.ctrl == ctrl {
			delete(s.watchers, sess)
		}
		s.mu.Unlock()
		s.cache.touchAll()
		ctrl.Close()
	}()
	return true
}

// sessionOf returns the session a pane belongs to, listing panes once if
// the pane is not known yet.
func (s *Server) sessionOf(ctx context.Context, pane tmux.PaneID) (tmux.SessionID, bool) {
	s.mu.Lock()
	sess, ok := s.paneSession[pane]
	s.mu.Unlock()
	if ok {
		return sess, true
	}
	panes, err := s.ListPanes(ctx)
	if err != nil {
		return "", false
	}
	// Answer from this listing even if it was too old to be kept as the map
	// (a structural change arrived meanwhile): it is fresh enough to choose
	// which session to watch.
	for _, p := range panes {
		if p.ID == pane {
			return p.SessionID, true
		}
	}
	return "", false
}

// learnPanes stores the pane-to-session map from a listing that began at
// generation gen; a listing older than the last forgetPanes is dropped.
func (s *Server) learnPanes(panes []tmux.Pane, gen uint64) {
	m := make(map[tmux.PaneID]tmux.SessionID, len(panes))
	for _, p := range panes {
		if _, ok := m[p.ID]; !ok { // grouped sessions list a pane once per session
			m[p.ID] = p.SessionID
		}
	}
	s.mu.Lock()
	if gen == s.paneGen {
		s.paneSession = m
	}
	s.mu.Unlock()
}

func (s *Server) forgetPanes() {
	s.mu.Lock()
	s.paneGen++
	if len(s.paneSession) > 0 {
		s.paneSession = map[tmux.PaneID]tmux.SessionID{}
	}
	s.mu.Unlock()
}

// probeFormat is the exec-only freshness probe. window_activity has one
// second resolution, so a capture taken in the same second as the window's
// last activity is never trusted (see probe).
const probeFormat = "#{history_size} #{cursor_x} #{cursor_y} #{pane_pid} #{pane_width} #{pane_height} #{window_activity} #{alternate_on} #{pane_in_mode}"

// probe reads the pane's cheap state in exec-only mode. It reports false
// when the state cannot vouch for the cache: the probe failed, or the
// window was active during the current second.
func (s *Server) probe(ctx context.Context, pane tmux.PaneID) (string, bool) {
	if !s.cfg.ExecOnly && s.client.Control() != nil {
		return "", false
	}
	out, err := s.call(ctx, "display-message", func(ctx context.Context, tr tmux.Transport) ([]byte, error) {
		return tr.Run(ctx, "display-message", "-p", "-t", string(pane), probeFormat)
	})
	if err != nil {
		return "", false
	}
	sig := strings.TrimSpace(string(out))
	f := strings.Fields(sig)
	if len(f) < 7 {
		return "", false
	}
	act, _ := strconv.ParseInt(f[6], 10, 64)
	if act >= s.now().Unix() {
		return "", false
	}
	return sig, true
}

// onWatchNotify runs on a watcher's reader goroutine.
func (s *Server) onWatchNotify(n tmux.Notification) {
	switch n.Type {
	case tmux.NotifyOutput, tmux.NotifyExtendedOutput, tmux.NotifyPause, tmux.NotifyContinue, tmux.NotifyPaneModeChanged:
		s.cache.touch(n.Pane)
	case tmux.NotifyLayoutChange, tmux.NotifyWindowAdd, tmux.NotifyWindowClose, tmux.NotifyWindowPaneChanged, tmux.NotifyExit:
		// Panes may have moved between sessions (join-pane, swap-pane
		// create or close no window): relearn which watcher covers which.
		s.forgetPanes()
		s.cache.touchAll()
	}
}

// onCommandNotify runs on the command connection's reader goroutine. It
// turns structural notifications into events (for resource list-changed
// notifications) and forgets the pane-to-session map. It never touches the
// capture cache: renames and new windows change no pane's content, and
// what does (output, layout changes) reaches the watchers.
func (s *Server) onCommandNotify(n tmux.Notification) {
	switch n.Type {
	case tmux.NotifySessionsChanged:
		s.mu.Lock()
		s.lastStructure = s.now()
		s.mu.Unlock()
		s.forgetPanes()
	case tmux.NotifyWindowAdd, tmux.NotifyWindowClose, tmux.NotifyUnlinkedWindowAdd, tmux.NotifyUnlinkedWindowClose:
		s.forgetPanes()
	case tmux.NotifyWindowRenamed, tmux.NotifyUnlinkedWindowRename, tmux.NotifySessionRenamed:
	default:
		return
	}
	s.bus.emit(Event{Type: EventStructure, Socket: s.sock, Notification: string(n.Type)})
}

// rateMeter counts commands per second over the last ten seconds.
type rateMeter struct {
	mu      sync.Mutex
	buckets [10]struct {
		sec int64
		n   uint64
	}
}

func (m *rateMeter) add(t time.Time) {
	sec := t.Unix()
	m.mu.Lock()
	b := &m.buckets[sec%10]
	if b.sec != sec {
		b.sec, b.n = sec, 0
	}
	b.n++
	m.mu.Unlock()
}

// perSecond returns the average rate over the ten seconds before now.
func (m *rateMeter) perSecond(now time.Time) float64 {
	sec := now.Unix()
	var n uint64
	m.mu.Lock()
	for _, b := range m.buckets {
		if b.sec > sec-10 && b.sec <= sec {
			n += b.n
		}
	}
	m.mu.Unlock()
	return float64(n) / 10
}

// Health is a snapshot of a supervised server.
type Health struct {
	Socket         string    `json:"socket"`
	State          State     `json:"state"`
	PID            int       `json:"pid,omitempty"`
	Version        string    `json:"version,omitempty"`
	Transport      string    `json:"transport"`
	Owned          bool      `json:"owned"` // tmux-mcp started this server
	UpSince        time.Time `json:"up_since,omitzero"`
	UptimeSeconds  float64   `json:"uptime_seconds"`
	Restarts       int       `json:"restarts"`
	LastDeathCause Cause     `json:"last_death_cause,omitempty"`
	LastDeath      string    `json:"last_death,omitempty"`
	LastDeathAt    time.Time `json:"last_death_at,omitzero"`
	RetryInSeconds float64   `json:"retry_in_seconds,omitempty"`
	FDs            int       `json:"fds"`
	FDLimit        uint64    `json:"fd_limit"`
	PTYs           int       `json:"ptys"`
	PTYMax         int       `json:"pty_max"`
	RSSBytes       uint64    `json:"rss_bytes"`
	Threads        int       `json:"threads"`
	CPUPercent     float64   `json:"cpu_percent"`
	CommandsPerSec float64   `json:"commands_per_sec"`
	Commands       uint64    `json:"commands"`
	CacheHits      uint64    `json:"cache_hits"`
	CacheHitRatio  float64   `json:"cache_hit_ratio"`
	RateLimited    uint64    `json:"rate_limited"`
	Watchers       int       `json:"watchers"`
}

// Health returns the server's current health snapshot. It makes no tmux
// call: resources come from the monitor's last sample.
func (s *Server) Health() Health {
	now := s.now()
	hits, reads := s.cacheHits.Load(), s.tmuxReads.Load()
	h := Health{
		Socket: s.sock.String(), Transport: s.client.Transport().Kind(),
		Commands: s.commands.Load(), CacheHits: hits, RateLimited: s.rateLimited.Load(),
		CommandsPerSec: s.meter.perSecond(now),
	}
	if hits+reads > 0 {
		h.CacheHitRatio = float64(hits) / float64(hits+reads)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h.State, h.PID, h.Version, h.Owned = s.state, s.id.pid, s.id.version, s.id.owned != nil
	if s.state == StateUp {
		h.UpSince = s.id.upSince
		h.UptimeSeconds = now.Sub(s.id.upSince).Seconds()
	}
	if s.state == StateRestarting {
		h.RetryInSeconds = max(s.retryAt.Sub(now).Seconds(), 0)
	}
	h.Restarts, h.LastDeathCause, h.LastDeath, h.LastDeathAt = s.restarts, s.lastCause, s.lastDetail, s.lastDeathAt
	h.FDs, h.FDLimit, h.PTYs, h.PTYMax = s.res.FDs, s.res.FDLimit, s.res.PTYs, s.res.PTYMax
	h.RSSBytes, h.Threads, h.CPUPercent = s.res.RSS, s.res.Threads, s.res.CPUPercent
	h.Watchers = len(s.watchers)
	return h
}

var cacheHitAttrs = []attribute.KeyValue{
	attribute.String("tmux.command", "capture-pane"), attribute.Bool("tmux.cache_hit", true),
}
