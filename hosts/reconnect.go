package hosts

import (
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// reconnectPolicy says when a link whose connection ended tries again.
// Zero fields take the defaults documented on each field.
type reconnectPolicy struct {
	// Min is the wait after the first failure (200ms); each further
	// failure waits Multiplier (1.5) times longer, at most Max (15s),
	// each spread by the jitter the tracker is made with.
	Min, Max   time.Duration
	Multiplier float64
	// StableAfter is how long a connection must have served for its loss
	// to be retried at once (2s): a connection that ends as soon as it is
	// made backs off, so that a host that refuses is not hammered.
	StableAfter time.Duration
}

func (p reconnectPolicy) withDefaults() reconnectPolicy {
	if p.Min <= 0 {
		p.Min = 200 * time.Millisecond
	}
	if p.Max <= 0 {
		p.Max = 15 * time.Second
	}
	if p.Multiplier < 1 {
		p.Multiplier = backoff.DefaultMultiplier
	}
	if p.StableAfter <= 0 {
		p.StableAfter = 2 * time.Second
	}
	return p
}

// reconnectJitter spreads the waits by ±25%, so that the links of many
// tmux-mcp processes to one host do not retry in lockstep.
const reconnectJitter = 0.25

// reconnect is the policy's answer to a connection that ended or an
// attempt that failed.
type reconnect struct {
	// Wait is how long to wait before the next attempt: 0, at once.
	Wait time.Duration
	// Reason says why, in words, for the log.
	Reason string
	// Repeat: the failure is the same as the last one since the link was
	// last up; it is not news.
	Repeat bool
}

// reconnects decides when a link tries again. It is pure: it never
// reads the clock or sleeps; the link passes the time in and carries the
// decision out (Link.run). It is not safe for concurrent use. Its shape is
// supervisor/death's Tracker, whose layer hosts cannot import.
type reconnects struct {
	policy   reconnectPolicy
	clock    *clockAt
	backoff  *backoff.ExponentialBackOff
	upSince  time.Time // when the current connection began to serve; zero while there is none
	failures int       // attempts failed or connections lost early since the last connection was made
	lastErr  string    // the last failure's text, "" once a connection is made
}

// clockAt is a backoff.Clock that reads the time the caller injected.
type clockAt struct{ now time.Time }

func (c *clockAt) Now() time.Time { return c.now }

// newReconnects returns the tracker of one link under p (defaults filled
// in). jitter is the backoff's randomization factor: 0 makes waits exact
// (tests), reconnectJitter spreads them.
func newReconnects(p reconnectPolicy, jitter float64) *reconnects {
	p = p.withDefaults()
	clk := &clockAt{}
	b := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(p.Min),
		backoff.WithMultiplier(p.Multiplier),
		backoff.WithMaxInterval(p.Max),
		backoff.WithRandomizationFactor(jitter),
		backoff.WithMaxElapsedTime(0),
		backoff.WithClockProvider(clk),
	)
	return &reconnects{policy: p, clock: clk, backoff: b}
}

// up records that a connection was made and serves from now: the backoff
// starts over, and the next failure is news.
func (r *reconnects) up(now time.Time) {
	r.upSince = now
	r.failures = 0
	r.lastErr = ""
	r.clock.now = now
	r.backoff.Reset()
}

// down decides for a connection that ended at now (after up) or an
// attempt that failed (without one), of err.
func (r *reconnects) down(now time.Time, err error) reconnect {
	why := "an error"
	if err != nil {
		why = err.Error()
	}
	d := reconnect{Repeat: why == r.lastErr}
	r.lastErr = why
	served, wasUp := now.Sub(r.upSince), !r.upSince.IsZero()
	r.upSince = time.Time{}
	r.clock.now = now
	if wasUp && served > r.policy.StableAfter {
		d.Reason = fmt.Sprintf("the connection served %s (more than %s): at once", roundWait(served), r.policy.StableAfter)
		return d
	}
	r.failures++
	d.Wait = r.backoff.NextBackOff()
	if wasUp {
		d.Reason = fmt.Sprintf("the connection ended after %s (not more than %s): backing off, failure %d, %s", roundWait(served), r.policy.StableAfter, r.failures, roundWait(d.Wait))
	} else {
		d.Reason = fmt.Sprintf("the attempt failed: backing off, failure %d, %s", r.failures, roundWait(d.Wait))
	}
	return d
}

// roundWait rounds d for humans: to the millisecond.
func roundWait(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
