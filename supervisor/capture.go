package supervisor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

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
	// Changed says the caller knows the pane changed since the last
	// capture it could be served (a PaneChanges event woke it): the cache
	// cannot answer, so the capture goes to tmux without the barrier round
	// trip that would prove as much, and is not cached. It is exact all
	// the same: capture-pane runs after the call began.
	Changed bool
	// StateAfter, when set, is a display-message format for the pane read
	// in the same round trip just after the capture (Capture.State): what
	// the pane was when it was captured, without a round trip of its
	// own. It implies Changed.
	StateAfter string
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
	// Freshness says what vouches for a capture served from cache (and
	// would for this one): "watcher" (a barrier on the session's watcher
	// connection showed no %output and no state change since), "probe"
	// (no watcher: the pane's state and its window's activity are as they
	// were), or "none" (nothing can: the capture went to tmux). See
	// freshness.go for the contract.
	Freshness string `json:"freshness"`
	// SHA256 is the SHA-256 of Content in hex (64 digits), so callers can
	// tell whether two captures differ without comparing them.
	SHA256 string `json:"sha256"`
	// State is the line CaptureRequest.StateAfter asked for.
	State []byte `json:"-"`
}

// ErrInvalidArgument matches requests the supervisor rejects before any
// tmux call (a malformed pane ID, caps above the ceilings); the message
// names the argument and the accepted values.
var ErrInvalidArgument = errors.New("supervisor: invalid argument")

// flightKey identifies captures that may share one tmux call: the same
// capture under the same proof (see freshness.go).
type flightKey struct {
	key   captureKey
	proof proof
	then  string // CaptureRequest.StateAfter
}

// Capture returns a pane's contents, capped. It is linearizable: the
// content includes every byte of output tmux had processed before the call
// began. It is served from cache only when the freshness check proves the
// pane has not changed since an identical capture (see freshness.go).
// Captures that reach tmux are shared between concurrent callers only when
// that cannot make one stale: under one proof, or, without a proof, in a
// call that began after the caller arrived. A capture beyond the pane's
// token bucket is refused with a RateLimitedError unless the cache can
// answer.
//
// A cached answer costs one barrier round trip on the pane's watcher
// connection (the proof), a map lookup and a copy. Profiled through the
// stdio transport (BenchmarkInProcessStdioCapture, docs/performance.md),
// a cached capture_pane costs about 120 us of CPU more than a ping: ~30
// for the barrier's write, read and match, ~25 for waking the goroutines
// that carry it, ~25 for the tool and its middleware, and ~40 for mcp-go
// decoding the request again and encoding the result. The barrier is
// what makes the answer exact; the rest is paid by every call.
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
	s.capturing.Add(1)
	defer s.capturing.Add(-1)
	key := plan.key(req)
	if req.StateAfter != "" {
		req.Changed = true
	}

	var p proof // the zero proof: capture from tmux, cache nothing
	if !req.Changed {
		p = s.fresh.prove(ctx, req.Pane)
		spanEvent(ctx, "tmux.capture_proof", attribute.String("tmux.pane", string(req.Pane)),
			attribute.String("tmux.freshness", p.freshnessName()), attribute.Bool("tmux.proven", p.proven()))
		if c, ok := s.fresh.lookup(p, key); ok {
			return s.hit(ctx, req.Pane, c, p), nil
		}
	}
	return s.sharedCapture(ctx, req, plan, key, p)
}

// sharedCapture answers a capture the cache did not hold when looked up
// under p: from one tmux call shared with the callers that may share it
// (see flightKey), or from the cache after all, when a run under the same
// proof stored the capture between that lookup and this call.
func (s *Server) sharedCapture(ctx context.Context, req CaptureRequest, plan capturePlan, key captureKey, p proof) (Capture, error) {
	// The shared capture must not die with whichever caller started it,
	// and each caller stops waiting at its own deadline.
	c, err := s.flight.do(ctx, flightKey{key: key, proof: p, then: req.StateAfter}, p.proven(), func() (Capture, error) {
		// Runs under one key follow each other: one that ended after the
		// caller's lookup has stored what this one would fetch again.
		if c, ok := s.fresh.lookup(p, key); ok {
			c.Cached = true
			return c, nil
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.CommandTimeout)
		defer cancel()
		return s.captureFromTmux(fctx, req, plan, key, p)
	})
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return Capture{}, queueError("capture-pane", err)
	}
	if err == nil && c.Cached {
		return s.hit(ctx, req.Pane, c, p), nil
	}
	return c, err
}

// key is the cache key of req captured as planned.
func (plan capturePlan) key(req CaptureRequest) captureKey {
	return captureKey{pane: req.Pane, start: plan.Start, end: plan.End, join: req.Join, escape: req.Escape,
		maxLines: plan.MaxLines, maxBytes: plan.MaxBytes}
}

// captureFromTmux runs one capture-pane under the pane's token bucket and
// caches the result under p.
func (s *Server) captureFromTmux(ctx context.Context, req CaptureRequest, plan capturePlan, key captureKey, p proof) (Capture, error) {
	// Over the pane's bucket: wait for a token if one comes within
	// RateWait (the cache could not answer, or we would not be here),
	// otherwise refuse with the time to wait.
	if ok, wait := s.paneRate.reserve(string(req.Pane), s.cfg.RateWait); !ok {
		s.rateLimited.Add(1)
		s.bus.emit(Event{Type: EventRateLimited, Socket: s.sock, Pane: req.Pane})
		spanEvent(ctx, "tmux.rate_limited", attribute.String("tmux.command", "capture-pane"),
			attribute.String("tmux.rate_limit.scope", "pane"), attribute.Int64("tmux.retry_after_ms", wait.Milliseconds()))
		return Capture{}, &RateLimitedError{RetryAfter: wait, Scope: "pane " + string(req.Pane)}
	} else if wait > 0 {
		spanEvent(ctx, "tmux.rate_wait", attribute.String("tmux.command", "capture-pane"), attribute.Int64("tmux.wait_ms", wait.Milliseconds()))
		if err := sleepCtx(ctx, wait); err != nil {
			return Capture{}, err
		}
	}
	var state []byte
	out, err := s.call(ctx, "capture-pane", func(ctx context.Context, _ tmux.Transport) ([]byte, error) {
		out, st, err := s.client.CaptureThen(ctx, tmux.CaptureOptions{Target: string(req.Pane), Start: plan.Start, End: plan.End,
			Join: req.Join, Escape: req.Escape}, req.StateAfter)
		state = st
		return out, err
	})
	if err != nil {
		return Capture{}, err
	}
	s.tmuxReads.Add(1)
	kept, lines, bytes := truncateTail(out, plan.MaxLines, plan.MaxBytes)
	c := Capture{Content: kept, Lines: strings.Count(string(kept), "\n"), Truncated: lines > 0 || bytes > 0,
		TruncatedLines: lines, TruncatedBytes: bytes, Freshness: p.freshnessName(), SHA256: digest(kept)}
	s.fresh.store(p, key, c)
	c.State = state
	return c, nil
}

func (s *Server) hit(ctx context.Context, pane tmux.PaneID, c Capture, p proof) Capture {
	s.cacheHits.Add(1)
	_, span := s.tracer.Start(ctx, "tmux capture-pane")
	span.SetAttributes(attribute.String("tmux.command", "capture-pane"), attribute.Bool("tmux.cache_hit", true),
		attribute.String("tmux.freshness", p.how))
	span.End()
	s.bus.emit(Event{Type: EventCacheHit, Socket: s.sock, Pane: pane})
	c.Cached = true
	c.Freshness = p.freshnessName()
	return c
}

// PaneChanges returns a channel that receives a value (coalesced: it holds
// at most one) each time pane may have changed as the watcher connection
// of its session sees it: %output, a mode change, a layout change, a pause
// or continue. The channel is closed when that connection ends (the
// session or server is gone, the connection was lost, supervision ended)
// or ctx ends; stop releases the subscription and may be called at any
// time. Changes after PaneChanges returns are never missed; a change just
// before may or may not be signalled, so take a baseline capture after
// subscribing. It fails with an error matching ErrNotWatched when no
// watcher can cover the pane (exec-only mode, tmux before 3.3, too many
// watched sessions): poll with Capture then; and with tmux.ErrPaneNotFound
// for a pane that does not exist.
func (s *Server) PaneChanges(ctx context.Context, pane tmux.PaneID) (changes <-chan struct{}, stop func(), err error) {
	if !validPaneID(pane) {
		return nil, nil, fmt.Errorf("%w: pane must be a pane ID like %%3, got %q", ErrInvalidArgument, pane)
	}
	if err := s.gate(ctx); err != nil {
		return nil, nil, err
	}
	return s.fresh.paneChanges(ctx, pane)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func validPaneID(p tmux.PaneID) bool {
	if len(p) < 2 || p[0] != '%' {
		return false
	}
	_, err := strconv.Atoi(string(p[1:]))
	return err == nil
}
