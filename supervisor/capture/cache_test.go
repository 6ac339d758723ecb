package capture

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

func capOf(s string) Result {
	return Result{Content: []byte(s), Lines: strings.Count(s, "\n"), Freshness: "watcher"}
}

// now returns the proof a barrier on watcher connection 1 would give for
// pane right now, with the pane's state unchanged ("s").
func now(c *captureCache, pane tmux.PaneID) Proof {
	return Proof{how: "watcher", epoch: 1, sig: "s", gen: c.generation(pane)}
}

// store proves and puts, as a capture without interference would.
func store(t *testing.T, c *captureCache, k Key, content string) {
	t.Helper()
	if !c.put(k, now(c, k.pane), capOf(content)) {
		t.Fatalf("put(%v) refused without a change in between", k)
	}
}

// get looks k up under a proof taken now.
func get(c *captureCache, k Key) (Result, bool) { return c.get(k, now(c, k.pane)) }

func TestCaptureCacheHitAndMiss(t *testing.T) {
	c := newCaptureCache()
	k := Key{pane: "%1", start: "-10", maxLines: 500, maxBytes: 1 << 18}

	if _, ok := get(c, k); ok {
		t.Fatal("get on an empty cache hit")
	}
	store(t, c, k, "hello\n")
	got, ok := get(c, k)
	if !ok || string(got.Content) != "hello\n" || got.Lines != 1 {
		t.Fatalf("get after put = %q, %v; want \"hello\\n\", true", got.Content, ok)
	}

	other := []Key{
		{pane: "%2", start: "-10", maxLines: 500, maxBytes: 1 << 18},
		{pane: "%1", start: "-11", maxLines: 500, maxBytes: 1 << 18},
		{pane: "%1", start: "-10", end: "3", maxLines: 500, maxBytes: 1 << 18},
		{pane: "%1", start: "-10", join: true, maxLines: 500, maxBytes: 1 << 18},
		{pane: "%1", start: "-10", escape: true, maxLines: 500, maxBytes: 1 << 18},
		{pane: "%1", start: "-10", maxLines: 50, maxBytes: 1 << 18},
		{pane: "%1", start: "-10", maxLines: 500, maxBytes: 1 << 10},
	}
	for _, o := range other {
		if _, ok := get(c, o); ok {
			t.Errorf("get(%v) hit an entry stored under %v", o, k)
		}
		if o.String() == k.String() {
			t.Errorf("String() of %v equals that of %v", o, k)
		}
	}
}

func TestCaptureCacheTouch(t *testing.T) {
	k1 := Key{pane: "%1"}
	k2 := Key{pane: "%2"}
	tests := []struct {
		name         string
		invalidate   func(c *captureCache)
		want1, want2 bool
	}{
		{"touch of the pane", func(c *captureCache) { c.touch("%1") }, false, true},
		{"touch of another pane", func(c *captureCache) { c.touch("%3") }, true, true},
		{"touchAll", func(c *captureCache) { c.touchAll() }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCaptureCache()
			store(t, c, k1, "one\n")
			store(t, c, k2, "two\n")
			tt.invalidate(c)
			if _, ok := get(c, k1); ok != tt.want1 {
				t.Errorf("get(%%1) hit = %v, want %v", ok, tt.want1)
			}
			if _, ok := get(c, k2); ok != tt.want2 {
				t.Errorf("get(%%2) hit = %v, want %v", ok, tt.want2)
			}
			// A new capture is cached again.
			store(t, c, k1, "one again\n")
			if got, ok := get(c, k1); !ok || string(got.Content) != "one again\n" {
				t.Errorf("get after a new put = %q, %v; want the new capture", got.Content, ok)
			}
		})
	}
}

func TestCaptureCacheTouchDuringCall(t *testing.T) {
	tests := []struct {
		name   string
		during func(c *captureCache)
		want   bool
	}{
		{"nothing", func(*captureCache) {}, true},
		{"output in the pane", func(c *captureCache) { c.touch("%1") }, false},
		{"output elsewhere", func(c *captureCache) { c.touch("%2") }, true},
		{"watcher lost", func(c *captureCache) { c.touchAll() }, false},
		{"output, then another capture began", func(c *captureCache) { c.touch("%1"); c.generation("%1") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCaptureCache()
			k := Key{pane: "%1"}
			p := now(c, "%1") // before the tmux call
			tt.during(c)
			if got := c.put(k, p, capOf("x\n")); got != tt.want {
				t.Errorf("put() = %v, want %v", got, tt.want)
			}
			if _, ok := get(c, k); ok != tt.want {
				t.Errorf("get() hit = %v, want %v", ok, tt.want)
			}
		})
	}
}

func TestCaptureCacheServesOnlyUnderTheSameProof(t *testing.T) {
	c := newCaptureCache()
	k := Key{pane: "%1"}
	stored := now(c, "%1")
	if !c.put(k, stored, capOf("before\n")) {
		t.Fatal("put refused")
	}
	tests := []struct {
		name  string
		proof func(p Proof) Proof
		want  bool
	}{
		{"the same proof", func(p Proof) Proof { return p }, true},
		{"another watcher connection", func(p Proof) Proof { p.epoch++; return p }, false},
		{"pane state changed (clear-history)", func(p Proof) Proof { p.sig = "t"; return p }, false},
		{"proven by the probe instead", func(p Proof) Proof { p.how = "probe"; return p }, false},
		{"an older generation", func(p Proof) Proof { p.gen--; return p }, false},
		{"no proof", func(Proof) Proof { return Proof{} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := c.get(k, tt.proof(stored)); got != tt.want {
				t.Errorf("get() hit = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCaptureCacheBounds(t *testing.T) {
	t.Run("keys per pane", func(t *testing.T) {
		c := newCaptureCache()
		var keys []Key
		for i := range cachePerPane + 2 {
			k := Key{pane: "%1", start: fmt.Sprint(-i)}
			keys = append(keys, k)
			store(t, c, k, fmt.Sprintf("capture %d\n", i))
		}
		for i, k := range keys {
			_, ok := get(c, k)
			if want := i >= 2; ok != want {
				t.Errorf("key %d of %d: hit = %v, want %v (the oldest go first)", i, len(keys), ok, want)
			}
		}
	})
	t.Run("recently read keys stay", func(t *testing.T) {
		c := newCaptureCache()
		first := Key{pane: "%1", start: "first"}
		store(t, c, first, "x\n")
		for i := range cachePerPane * 3 {
			get(c, first)
			store(t, c, Key{pane: "%1", start: fmt.Sprint(i)}, "y\n")
		}
		if _, ok := get(c, first); !ok {
			t.Error("a key read before every put was evicted")
		}
	})
	t.Run("panes", func(t *testing.T) {
		c := newCaptureCache()
		for i := range cacheMaxPanes + 100 {
			store(t, c, Key{pane: tmux.PaneID(fmt.Sprintf("%%%d", i))}, "x\n")
		}
		if panes, _ := c.stats(); panes != cacheMaxPanes {
			t.Errorf("panes held = %d, want %d", panes, cacheMaxPanes)
		}
		if _, ok := get(c, Key{pane: "%0"}); ok {
			t.Error("the least recently used pane was kept")
		}
		last := tmux.PaneID(fmt.Sprintf("%%%d", cacheMaxPanes+99))
		if _, ok := get(c, Key{pane: last}); !ok {
			t.Error("the most recent pane was evicted")
		}
	})
	t.Run("bytes", func(t *testing.T) {
		c := newCaptureCache()
		c.maxContent = 4096
		big := strings.Repeat("x", c.maxContent/c.perPane)
		for i := range 10 {
			store(t, c, Key{pane: tmux.PaneID(fmt.Sprintf("%%%d", i))}, big)
		}
		if _, content := c.stats(); content > c.maxContent {
			t.Errorf("content held = %d bytes, want <= %d", content, c.maxContent)
		}
		if c.put(Key{pane: "%1"}, now(c, "%1"), capOf(big+"y")) {
			t.Error("a capture larger than a pane's share was stored")
		}
		c.touchAll()
		if panes, content := c.stats(); panes != 0 || content != 0 {
			t.Errorf("after touchAll stats() = %d, %d; want 0, 0", panes, content)
		}
	})
}

func TestCaptureCacheOwnsContent(t *testing.T) {
	c := newCaptureCache()
	buf := []byte("hello\nworld\n")
	k := Key{pane: "%1"}
	c.put(k, now(c, "%1"), Result{Content: buf[6:]})
	copy(buf, "XXXXXXXXXXXX")
	if got, _ := get(c, k); string(got.Content) != "world\n" {
		t.Errorf("cached content = %q after the caller reused its buffer, want %q", got.Content, "world\n")
	}
}

func TestCaptureCacheConcurrent(t *testing.T) {
	c := newCaptureCache()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 500 {
				p := tmux.PaneID(fmt.Sprintf("%%%d", (w+i)%7))
				k := Key{pane: p, start: fmt.Sprint(i % 5)}
				switch i % 4 {
				case 0:
					c.touch(p)
				case 1:
					c.put(k, now(c, p), capOf("x\n"))
				case 2:
					get(c, k)
				case 3:
					if i%100 == 3 {
						c.touchAll()
					}
				}
			}
		})
	}
	wg.Wait()
	_, content := c.stats()
	if content < 0 {
		t.Errorf("content accounting went negative: %d", content)
	}
}
