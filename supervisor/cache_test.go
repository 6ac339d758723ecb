package supervisor

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

func capOf(s string) Capture {
	return Capture{Content: []byte(s), Lines: strings.Count(s, "\n"), Freshness: "watcher"}
}

// store reads the generation and puts, as a capture without interference
// would.
func store(t *testing.T, c *captureCache, k captureKey, content string) {
	t.Helper()
	if !c.put(k, c.generation(k.pane), capOf(content)) {
		t.Fatalf("put(%v) refused without a change in between", k)
	}
}

func TestCaptureCacheHitAndMiss(t *testing.T) {
	c := newCaptureCache()
	k := captureKey{pane: "%1", start: "-10", maxLines: 500, maxBytes: 1 << 18}

	if _, ok := c.get(k); ok {
		t.Fatal("get on an empty cache hit")
	}
	store(t, c, k, "hello\n")
	got, ok := c.get(k)
	if !ok || string(got.Content) != "hello\n" || got.Lines != 1 {
		t.Fatalf("get after put = %q, %v; want \"hello\\n\", true", got.Content, ok)
	}

	other := []captureKey{
		{pane: "%2", start: "-10", maxLines: 500, maxBytes: 1 << 18},
		{pane: "%1", start: "-11", maxLines: 500, maxBytes: 1 << 18},
		{pane: "%1", start: "-10", end: "3", maxLines: 500, maxBytes: 1 << 18},
		{pane: "%1", start: "-10", join: true, maxLines: 500, maxBytes: 1 << 18},
		{pane: "%1", start: "-10", escape: true, maxLines: 500, maxBytes: 1 << 18},
		{pane: "%1", start: "-10", maxLines: 50, maxBytes: 1 << 18},
		{pane: "%1", start: "-10", maxLines: 500, maxBytes: 1 << 10},
		{pane: "%1", start: "-10", maxLines: 500, maxBytes: 1 << 18, probe: "1 0 0 4242 80 24"},
	}
	for _, o := range other {
		if _, ok := c.get(o); ok {
			t.Errorf("get(%v) hit an entry stored under %v", o, k)
		}
		if o.String() == k.String() {
			t.Errorf("String() of %v equals that of %v", o, k)
		}
	}
}

func TestCaptureCacheTouch(t *testing.T) {
	k1 := captureKey{pane: "%1"}
	k2 := captureKey{pane: "%2"}
	tests := []struct {
		name         string
		invalidate   func(c *captureCache)
		want1, want2 bool
	}{
		{"touch of the pane", func(c *captureCache) { c.touch("%1") }, false, true},
		{"touch of another pane", func(c *captureCache) { c.touch("%3") }, true, true},
		{"touchAll", func(c *captureCache) { c.touchAll() }, false, false},
		{"forget", func(c *captureCache) { c.forget("%2") }, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCaptureCache()
			store(t, c, k1, "one\n")
			store(t, c, k2, "two\n")
			tt.invalidate(c)
			if _, ok := c.get(k1); ok != tt.want1 {
				t.Errorf("get(%%1) hit = %v, want %v", ok, tt.want1)
			}
			if _, ok := c.get(k2); ok != tt.want2 {
				t.Errorf("get(%%2) hit = %v, want %v", ok, tt.want2)
			}
			// A new capture is cached again.
			store(t, c, k1, "one again\n")
			if got, ok := c.get(k1); !ok || string(got.Content) != "one again\n" {
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
			k := captureKey{pane: "%1"}
			gen := c.generation("%1") // before the tmux call
			tt.during(c)
			if got := c.put(k, gen, capOf("x\n")); got != tt.want {
				t.Errorf("put() = %v, want %v", got, tt.want)
			}
			if _, ok := c.get(k); ok != tt.want {
				t.Errorf("get() hit = %v, want %v", ok, tt.want)
			}
		})
	}
}

func TestCaptureCacheProbeSignature(t *testing.T) {
	c := newCaptureCache()
	sig := "120 5 17 4242 120 40 1767000000 0 0"
	k := captureKey{pane: "%1", probe: sig}
	store(t, c, k, "before\n")
	if _, ok := c.get(k); !ok {
		t.Fatal("get with the same signature missed")
	}
	moved := k
	moved.probe = "121 0 17 4242 120 40 1767000001 0 0" // a line was printed
	if _, ok := c.get(moved); ok {
		t.Error("get with a changed signature hit")
	}
	store(t, c, moved, "after\n")
	if got, ok := c.get(moved); !ok || string(got.Content) != "after\n" {
		t.Errorf("get(new signature) = %q, %v; want \"after\\n\", true", got.Content, ok)
	}
}

func TestCaptureCacheBounds(t *testing.T) {
	t.Run("keys per pane", func(t *testing.T) {
		c := newCaptureCache()
		var keys []captureKey
		for i := range cachePerPane + 2 {
			k := captureKey{pane: "%1", start: fmt.Sprint(-i)}
			keys = append(keys, k)
			store(t, c, k, fmt.Sprintf("capture %d\n", i))
		}
		for i, k := range keys {
			_, ok := c.get(k)
			if want := i >= 2; ok != want {
				t.Errorf("key %d of %d: hit = %v, want %v (the oldest go first)", i, len(keys), ok, want)
			}
		}
	})
	t.Run("recently read keys stay", func(t *testing.T) {
		c := newCaptureCache()
		first := captureKey{pane: "%1", start: "first"}
		store(t, c, first, "x\n")
		for i := range cachePerPane * 3 {
			c.get(first)
			store(t, c, captureKey{pane: "%1", start: fmt.Sprint(i)}, "y\n")
		}
		if _, ok := c.get(first); !ok {
			t.Error("a key read before every put was evicted")
		}
	})
	t.Run("panes", func(t *testing.T) {
		c := newCaptureCache()
		for i := range cacheMaxPanes + 100 {
			store(t, c, captureKey{pane: tmux.PaneID(fmt.Sprintf("%%%d", i))}, "x\n")
		}
		if panes, _ := c.stats(); panes != cacheMaxPanes {
			t.Errorf("panes held = %d, want %d", panes, cacheMaxPanes)
		}
		if _, ok := c.get(captureKey{pane: "%0"}); ok {
			t.Error("the least recently used pane was kept")
		}
		last := tmux.PaneID(fmt.Sprintf("%%%d", cacheMaxPanes+99))
		if _, ok := c.get(captureKey{pane: last}); !ok {
			t.Error("the most recent pane was evicted")
		}
	})
	t.Run("bytes", func(t *testing.T) {
		c := newCaptureCache()
		c.maxContent = 4096
		big := strings.Repeat("x", c.maxContent/c.perPane)
		for i := range 10 {
			store(t, c, captureKey{pane: tmux.PaneID(fmt.Sprintf("%%%d", i))}, big)
		}
		if _, content := c.stats(); content > c.maxContent {
			t.Errorf("content held = %d bytes, want <= %d", content, c.maxContent)
		}
		if c.put(captureKey{pane: "%1"}, c.generation("%1"), capOf(big+"y")) {
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
	k := captureKey{pane: "%1"}
	c.put(k, c.generation("%1"), Capture{Content: buf[6:]})
	copy(buf, "XXXXXXXXXXXX")
	if got, _ := c.get(k); string(got.Content) != "world\n" {
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
				k := captureKey{pane: p, start: fmt.Sprint(i % 5)}
				switch i % 4 {
				case 0:
					c.touch(p)
				case 1:
					c.put(k, c.generation(p), capOf("x\n"))
				case 2:
					c.get(k)
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
