package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.opentelemetry.io/otel/attribute"

	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/supervisor/marks"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// CaptureRequest asks for a pane's contents (capture.Request).
type CaptureRequest = capture.Request

// Capture is a pane's contents and how they were obtained
// (capture.Result).
type Capture = capture.Result

// ErrInvalidArgument matches requests the supervisor rejects before any
// tmux call (a malformed pane ID, caps above the ceilings); the message
// names the argument and the accepted values.
var ErrInvalidArgument = errors.New("supervisor: invalid argument")

// flightKey identifies captures that may share one tmux call: the same
// capture under the same proof (see supervisor/capture/freshness.go).
type flightKey struct {
	key   capture.Key
	proof capture.Proof
	then  string // CaptureRequest.StateAfter
}

// Capture returns a pane's contents, capped. It is linearizable: the
// content includes every byte of output tmux had processed before the call
// began. It is served from cache only when the freshness check proves the
// pane has not changed since an identical capture (see supervisor/capture/freshness.go).
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
	plan, err := capture.NewPlan(req, s.cfg.captureLimits(), 0)
	if err != nil {
		return Capture{}, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	if err := s.gate(ctx); err != nil {
		return Capture{}, err
	}
	s.capturing.Add(1)
	defer s.capturing.Add(-1)
	key := plan.Key(req)
	if req.StateAfter != "" {
		req.Changed = true
	}

	var p capture.Proof // the zero proof: capture from tmux, cache nothing
	if !req.Changed {
		var c Capture
		var ok bool
		p, c, ok = s.fresh.Check(ctx, req.Pane, s.sessionOf(ctx, req.Pane), key)
		spanEvent(ctx, "tmux.capture_proof", attribute.String("tmux.pane", string(req.Pane)),
			attribute.String("tmux.freshness", p.Name()), attribute.Bool("tmux.proven", p.Proven()))
		if ok {
			return s.hit(ctx, req.Pane, c, p), nil
		}
	}
	return s.sharedCapture(ctx, req, plan, key, p)
}

// sharedCapture answers a capture the cache did not hold when looked up
// under p: from one tmux call shared with the callers that may share it
// (see flightKey), or from the cache after all, when a run under the same
// proof stored the capture between that lookup and this call.
func (s *Server) sharedCapture(ctx context.Context, req CaptureRequest, plan capture.Plan, key capture.Key, p capture.Proof) (Capture, error) {
	// The shared capture must not die with whichever caller started it,
	// and each caller stops waiting at its own deadline.
	f := &fetch{s: s, ctx: ctx, req: req, plan: plan, key: key, proof: p}
	c, err := s.flight.Do(ctx, flightKey{key: key, proof: p, then: req.StateAfter}, p.Proven(), f.run)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return Capture{}, queueError("capture-pane", err)
	}
	if err == nil && c.Cached {
		return s.hit(ctx, req.Pane, c, p), nil
	}
	return c, err
}

// hit answers a capture from cache: counted, traced as a cache hit (a
// span of its own, no tmux call) and announced.
func (s *Server) hit(ctx context.Context, pane tmux.PaneID, c Capture, p capture.Proof) Capture {
	s.cacheHits.Add(1)
	_, span := s.tracer.Start(ctx, "tmux capture-pane")
	span.SetAttributes(attribute.String("tmux.command", "capture-pane"), attribute.Bool("tmux.cache_hit", true),
		attribute.String("tmux.freshness", p.Name()))
	span.End()
	s.bus.emit(Event{Type: EventCacheHit, Socket: s.sock, Pane: pane})
	c.Cached = true
	c.Freshness = p.Name()
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
	return s.fresh.PaneChanges(ctx, pane, s.sessionOf(ctx, pane))
}

// PaneMarks returns what the OSC 133 marks the pane's shell printed say of
// it (package marks), read from its session's watcher after every byte
// tmux had read from the pane before the call (capture.Freshness.Marks).
// Where no watcher covers the pane it fails with an error matching
// capture.ErrNotWatched.
func (s *Server) PaneMarks(ctx context.Context, pane tmux.PaneID) (marks.Read, error) {
	if !validPaneID(pane) {
		return marks.Read{}, fmt.Errorf("%w: pane must be a pane ID like %%3, got %q", ErrInvalidArgument, pane)
	}
	if err := s.gate(ctx); err != nil {
		return marks.Read{}, err
	}
	return s.fresh.Marks(ctx, pane, s.sessionOf(ctx, pane))
}

func validPaneID(p tmux.PaneID) bool {
	if len(p) < 2 || p[0] != '%' {
		return false
	}
	_, err := strconv.Atoi(string(p[1:]))
	return err == nil
}

// ErrNotWatched matches PaneChanges errors for a pane that no watcher
// connection can cover (capture.ErrNotWatched).
var ErrNotWatched = capture.ErrNotWatched
