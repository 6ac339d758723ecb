package supervisor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"go.opentelemetry.io/otel/attribute"
)

// fetch is one capture that goes to tmux, run once for every caller that
// may share it (Server.flight, see flightKey): the capture, what the
// request asked for, and the proof it is stored under.
type fetch struct {
	s     *Server
	ctx   context.Context // the first caller's: its values, not its end
	req   CaptureRequest
	plan  capture.Plan
	key   capture.Key
	proof capture.Proof
}

// run is the shared run. It must not die with whichever caller started
// it (each caller stops waiting at its own deadline), so it has a
// deadline of its own.
func (f *fetch) run() (Capture, error) {
	// Runs under one key follow each other: one that ended after the
	// caller's lookup has stored what this one would fetch again.
	if c, ok := f.s.fresh.Lookup(f.proof, f.key); ok {
		c.Cached = true
		return c, nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(f.ctx), f.s.cfg.CommandTimeout)
	defer cancel()
	return f.fromTmux(ctx)
}

// fromTmux runs one capture-pane under the pane's token bucket and caches
// the result under the proof.
func (f *fetch) fromTmux(ctx context.Context) (Capture, error) {
	s, req, plan, p := f.s, f.req, f.plan, f.proof
	// Over the pane's bucket: wait for a token if one comes within
	// RateWait (the cache could not answer, or we would not be here),
	// otherwise refuse with the time to wait.
	if ok, wait := s.paneRate.Reserve(string(req.Pane), s.cfg.RateWait); !ok {
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
	out, state, err := s.callCapture(ctx, tmux.CaptureOptions{Target: string(req.Pane), Start: plan.Start, End: plan.End,
		Join: req.Join, Escape: req.Escape}, req.StateAfter)
	if err != nil {
		return Capture{}, err
	}
	s.tmuxReads.Add(1)
	kept, lines, bytes := capture.TruncateTail(out, plan.MaxLines, plan.MaxBytes)
	c := Capture{Content: kept, Lines: strings.Count(string(kept), "\n"), Truncated: lines > 0 || bytes > 0,
		TruncatedLines: lines, TruncatedBytes: bytes, Freshness: p.Name(), SHA256: digest(kept)}
	s.fresh.Store(p, f.key, c)
	c.State = state
	return c, nil
}

// digest is the SHA-256 of b in hex (Capture.SHA256).
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
