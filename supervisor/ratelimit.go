package supervisor

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
)

// ErrRateLimited matches the error of a call refused by a rate limit: retry
// after the delay it names.
var ErrRateLimited = errors.New("supervisor: rate limited")

// RateLimitedError is a call refused by a token bucket.
type RateLimitedError struct {
	// RetryAfter is when a token will be available.
	RetryAfter time.Duration
	// Scope names the bucket: "pane %3" or "server".
	Scope string
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("rate limited (%s), retry after %s", e.Scope, death.RoundDelay(e.RetryAfter))
}

// Is matches ErrRateLimited.
func (e *RateLimitedError) Is(target error) bool { return target == ErrRateLimited }

// RetryDelay says when the call may succeed.
func (e *RateLimitedError) RetryDelay() time.Duration { return e.RetryAfter }

// tokenBucket holds up to burst tokens and gains rate tokens per second. It
// never reads the clock: callers pass the time in. Not safe for concurrent
// use; keyedBuckets adds the lock.
type tokenBucket struct {
	rate   float64 // tokens per second; <= 0 means unlimited
	burst  float64
	tokens float64 // may go negative: tokens reserved ahead of time
	last   time.Time
}

// newTokenBucket returns a full bucket.
func newTokenBucket(rate float64, burst int, now time.Time) *tokenBucket {
	b := float64(max(burst, 1))
	return &tokenBucket{rate: rate, burst: b, tokens: b, last: now}
}

func (b *tokenBucket) refill(now time.Time) {
	if now.After(b.last) {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
		b.last = now
	}
}

// take takes a token at now if one is there. If not, retryAfter is how long
// until one will be.
func (b *tokenBucket) take(now time.Time) (ok bool, retryAfter time.Duration) {
	return b.reserve(now, 0)
}

// reserve takes a token that is there now or will be within maxWait. ok
// with a non-zero wait means the token is taken and the caller must wait
// that long before using it; not ok means nothing was taken and wait is how
// long until a token will be there.
func (b *tokenBucket) reserve(now time.Time, maxWait time.Duration) (ok bool, wait time.Duration) {
	if b.rate <= 0 {
		return true, 0
	}
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait = b.until(1)
	if wait <= maxWait {
		b.tokens--
		return true, wait
	}
	return false, wait
}

// until returns how long until the bucket holds n tokens.
func (b *tokenBucket) until(n float64) time.Duration {
	missing := n - b.tokens
	if missing <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(missing * float64(time.Second) / b.rate))
}

// full reports whether the bucket is back at its burst at now, so that
// dropping it and later starting a new one changes nothing.
func (b *tokenBucket) full(now time.Time) bool {
	if b.rate <= 0 {
		return true
	}
	b.refill(now)
	return b.tokens >= b.burst
}

// keyedBuckets is one token bucket per key (a pane, a server), created full
// on first use. Buckets that have refilled completely are dropped now and
// then, so the map holds only keys used recently.
type keyedBuckets struct {
	rate  float64
	burst int
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*tokenBucket
	sweepAt   int // sweep when the map reaches this size
	maxBucket int // hard bound on the map
}

const (
	minSweep          = 64
	defaultMaxBuckets = 4096
)

// newKeyedBuckets returns buckets of rate tokens per second and the given
// burst, reading the time from now.
func newKeyedBuckets(rate float64, burst int, now func() time.Time) *keyedBuckets {
	return &keyedBuckets{rate: rate, burst: burst, now: now, buckets: map[string]*tokenBucket{},
		sweepAt: minSweep, maxBucket: defaultMaxBuckets}
}

// take takes a token from key's bucket; see tokenBucket.take.
func (k *keyedBuckets) take(key string) (bool, time.Duration) {
	return k.reserve(key, 0)
}

// reserve reserves a token from key's bucket; see tokenBucket.reserve.
func (k *keyedBuckets) reserve(key string, maxWait time.Duration) (bool, time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	b, ok := k.buckets[key]
	if !ok {
		if len(k.buckets) >= k.sweepAt {
			k.sweep(now)
		}
		b = newTokenBucket(k.rate, k.burst, now)
		k.buckets[key] = b
	}
	return b.reserve(now, maxWait)
}

// sweep drops full buckets, then, if the map is still at its hard bound,
// arbitrary ones (which only gives those keys a fresh burst). The next
// sweep happens when the map has doubled, so sweeping costs O(1) per take.
func (k *keyedBuckets) sweep(now time.Time) {
	for key, b := range k.buckets {
		if b.full(now) {
			delete(k.buckets, key)
		}
	}
	for key := range k.buckets {
		if len(k.buckets) < k.maxBucket {
			break
		}
		delete(k.buckets, key)
	}
	k.sweepAt = min(k.maxBucket, max(minSweep, 2*len(k.buckets)))
}

// forget drops key's bucket (its pane is gone).
func (k *keyedBuckets) forget(key string) {
	k.mu.Lock()
	delete(k.buckets, key)
	k.mu.Unlock()
}

// size returns the number of buckets held.
func (k *keyedBuckets) size() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.buckets)
}
