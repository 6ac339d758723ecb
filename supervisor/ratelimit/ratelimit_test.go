package ratelimit

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// manualClock is a clock that moves only when told to.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestTokenBucket(t *testing.T) {
	type step struct {
		after     time.Duration // advance the clock first
		wantOK    bool
		wantRetry time.Duration
	}
	tests := []struct {
		name  string
		rate  float64
		burst int
		steps []step
	}{
		{"burst then refusal", 20, 3, []step{
			{0, true, 0}, {0, true, 0}, {0, true, 0},
			{0, false, 50 * time.Millisecond},
			{0, false, 50 * time.Millisecond},
		}},
		{"refill over time", 10, 2, []step{
			{0, true, 0}, {0, true, 0},
			{40 * time.Millisecond, false, 60 * time.Millisecond},
			{60 * time.Millisecond, true, 0},
			{0, false, 100 * time.Millisecond},
			{time.Hour, true, 0}, {0, true, 0}, // refills to burst, never beyond
			{0, false, 100 * time.Millisecond},
		}},
		{"retry after is exact", 4, 1, []step{
			{0, true, 0},
			{0, false, 250 * time.Millisecond},
			{100 * time.Millisecond, false, 150 * time.Millisecond},
			{150 * time.Millisecond, true, 0},
		}},
		{"unlimited", 0, 1, []step{{0, true, 0}, {0, true, 0}, {0, true, 0}}},
		{"clock going backwards adds nothing", 1, 1, []step{
			{0, true, 0}, {-time.Minute, false, time.Second},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := t0
			b := NewBucket(tt.rate, tt.burst, now)
			for i, s := range tt.steps {
				now = now.Add(s.after)
				ok, retry := b.Take(now)
				if ok != s.wantOK || retry != s.wantRetry {
					t.Errorf("step %d: take() = %v, %v; want %v, %v", i, ok, retry, s.wantOK, s.wantRetry)
				}
			}
		})
	}
}

func TestTokenBucketReserve(t *testing.T) {
	b := NewBucket(10, 1, t0)
	if ok, wait := b.Reserve(t0, 250*time.Millisecond); !ok || wait != 0 {
		t.Fatalf("first reserve = %v, %v; want true, 0", ok, wait)
	}
	if ok, wait := b.Reserve(t0, 250*time.Millisecond); !ok || wait != 100*time.Millisecond {
		t.Fatalf("second reserve = %v, %v; want true, 100ms", ok, wait)
	}
	if ok, wait := b.Reserve(t0, 250*time.Millisecond); !ok || wait != 200*time.Millisecond {
		t.Fatalf("third reserve = %v, %v; want true, 200ms", ok, wait)
	}
	// The fourth would have to wait 300ms: refused, and nothing taken.
	if ok, wait := b.Reserve(t0, 250*time.Millisecond); ok || wait != 300*time.Millisecond {
		t.Fatalf("fourth reserve = %v, %v; want false, 300ms", ok, wait)
	}
	if ok, wait := b.Reserve(t0.Add(50*time.Millisecond), 250*time.Millisecond); !ok || wait != 250*time.Millisecond {
		t.Fatalf("reserve 50ms later = %v, %v; want true, 250ms", ok, wait)
	}
}

func TestKeyedBuckets(t *testing.T) {
	clk := &manualClock{t: t0}
	k := NewKeyed(10, 2, clk.now)
	for i := range 2 {
		if ok, _ := k.Take("%1"); !ok {
			t.Fatalf("take %%1 #%d refused, want allowed", i+1)
		}
	}
	if ok, retry := k.Take("%1"); ok || retry != 100*time.Millisecond {
		t.Errorf("take %%1 #3 = %v, %v; want false, 100ms", ok, retry)
	}
	if ok, _ := k.Take("%2"); !ok {
		t.Errorf("take %%2 refused: keys must not share a bucket")
	}
	clk.advance(100 * time.Millisecond)
	if ok, _ := k.Take("%1"); !ok {
		t.Errorf("take %%1 after refill refused, want allowed")
	}
	k.Forget("%1")
	if ok, _ := k.Take("%1"); !ok {
		t.Errorf("take %%1 after forget refused, want a fresh bucket")
	}
}

func TestKeyedBucketsEvictsIdleBuckets(t *testing.T) {
	clk := &manualClock{t: t0}
	k := NewKeyed(10, 2, clk.now)
	// Many keys, each used once and then idle long enough to refill.
	for i := range 10000 {
		k.Take(fmt.Sprintf("%%%d", i))
		clk.advance(time.Millisecond)
	}
	// Only keys used in the last 100ms (the refill time) may be kept, plus
	// the slack of the doubling sweep.
	if got, limit := k.Size(), 2*100+minSweep; got > limit {
		t.Errorf("after 10000 idle keys size() = %d, want <= %d", got, limit)
	}
	// A bucket that is not full survives a sweep: its debt is not forgiven.
	k2 := NewKeyed(1, 1, clk.now)
	k2.Take("busy")
	for i := range minSweep * 4 {
		k2.Take(fmt.Sprintf("other%d", i))
	}
	if ok, _ := k2.Take("busy"); ok {
		t.Errorf("busy bucket was evicted while empty: take allowed, want refused")
	}
}

func TestKeyedBucketsHardBound(t *testing.T) {
	clk := &manualClock{t: t0}
	k := NewKeyed(1, 1, clk.now)
	k.maxBucket = 100
	for i := range 1000 { // all active, none full
		k.Take(fmt.Sprintf("k%d", i))
	}
	if got := k.Size(); got > 100 {
		t.Errorf("size() = %d, want <= 100", got)
	}
}

func TestKeyedBucketsConcurrent(t *testing.T) {
	clk := &manualClock{t: t0}
	k := NewKeyed(1, 50, clk.now)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if ok, _ := k.Take("server"); ok {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if allowed != 50 {
		t.Errorf("allowed %d of 160 concurrent takes, want exactly the burst 50", allowed)
	}
}
