// Package ratelimit is the supervisor's token buckets: one bucket per
// key (a pane, a server), each holding up to a burst of tokens and gaining
// a rate of them per second. A bucket never reads the clock (the time is
// passed in); Keyed holds one per key behind a lock, creates them full and
// drops those refilled now and then, so the map holds only the keys used
// recently. The supervisor turns a refusal into its RateLimitedError.
package ratelimit

import (
	"math"
	"sync"
	"time"
)

// Bucket holds up to burst tokens and gains rate tokens per second. It
// never reads the clock: callers pass the time in. Not safe for concurrent
// use; Keyed adds the lock.
type Bucket struct {
	rate   float64 // tokens per second; <= 0 means unlimited
	burst  float64
	tokens float64 // may go negative: tokens reserved ahead of time
	last   time.Time
}

// NewBucket returns a full bucket.
func NewBucket(rate float64, burst int, now time.Time) *Bucket {
	b := float64(max(burst, 1))
	return &Bucket{rate: rate, burst: b, tokens: b, last: now}
}

func (b *Bucket) refill(now time.Time) {
	if now.After(b.last) {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
		b.last = now
	}
}

// Take takes a token at now if one is there. If not, retryAfter is how long
// until one will be.
func (b *Bucket) Take(now time.Time) (ok bool, retryAfter time.Duration) {
	return b.Reserve(now, 0)
}

// Reserve takes a token that is there now or will be within maxWait. ok
// with a non-zero wait means the token is taken and the caller must wait
// that long before using it; not ok means nothing was taken and wait is how
// long until a token will be there.
func (b *Bucket) Reserve(now time.Time, maxWait time.Duration) (ok bool, wait time.Duration) {
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
func (b *Bucket) until(n float64) time.Duration {
	missing := n - b.tokens
	if missing <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(missing * float64(time.Second) / b.rate))
}

// full reports whether the bucket is back at its burst at now, so that
// dropping it and later starting a new one changes nothing.
func (b *Bucket) full(now time.Time) bool {
	if b.rate <= 0 {
		return true
	}
	b.refill(now)
	return b.tokens >= b.burst
}

// Keyed is one token bucket per key (a pane, a server), created full
// on first use. Buckets that have refilled completely are dropped now and
// then, so the map holds only keys used recently.
type Keyed struct {
	rate  float64
	burst int
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*Bucket
	sweepAt   int // sweep when the map reaches this size
	maxBucket int // hard bound on the map
}

const (
	minSweep          = 64
	defaultMaxBuckets = 4096
)

// NewKeyed returns buckets of rate tokens per second and the given
// burst, reading the time from now.
func NewKeyed(rate float64, burst int, now func() time.Time) *Keyed {
	return &Keyed{rate: rate, burst: burst, now: now, buckets: map[string]*Bucket{},
		sweepAt: minSweep, maxBucket: defaultMaxBuckets}
}

// Take takes a token from key's bucket; see Bucket.Take.
func (k *Keyed) Take(key string) (bool, time.Duration) {
	return k.Reserve(key, 0)
}

// Reserve reserves a token from key's bucket; see Bucket.Reserve.
func (k *Keyed) Reserve(key string, maxWait time.Duration) (bool, time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	b, ok := k.buckets[key]
	if !ok {
		if len(k.buckets) >= k.sweepAt {
			k.sweep(now)
		}
		b = NewBucket(k.rate, k.burst, now)
		k.buckets[key] = b
	}
	return b.Reserve(now, maxWait)
}

// sweep drops full buckets, then, if the map is still at its hard bound,
// arbitrary ones (which only gives those keys a fresh burst). The next
// sweep happens when the map has doubled, so sweeping costs O(1) per take.
func (k *Keyed) sweep(now time.Time) {
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

// Forget drops key's bucket (its pane is gone).
func (k *Keyed) Forget(key string) {
	k.mu.Lock()
	delete(k.buckets, key)
	k.mu.Unlock()
}

// Size returns the number of buckets held.
func (k *Keyed) Size() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.buckets)
}
