package capture

import (
	"bytes"
	"container/list"
	"fmt"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Key identifies one capture of one pane: the planned range, the
// flags and the caps.
type Key struct {
	pane               tmux.PaneID
	start, end         string
	join, escape       bool
	maxLines, maxBytes int
}

// String returns the key as text, for logs and tests.
func (k Key) String() string {
	return fmt.Sprintf("%s|%s|%s|%t|%t|%d|%d", k.pane, k.start, k.end, k.join, k.escape, k.maxLines, k.maxBytes)
}

// Bounds of the capture cache.
const (
	cacheMaxPanes   = 1024     // panes with state
	cachePerPane    = 4        // captures kept per pane
	cacheMaxContent = 64 << 20 // bytes of pane text kept in all
)

// captureCache keeps recent captures per pane, each with the proof it was
// taken under (see freshness.go), and serves one again only under an
// identical proof. Change is tracked by a generation per pane: touch (any
// %output, %pause, %continue or mode change for the pane) and touchAll
// (tmux-mcp ran a command that may change panes; the server died) start a
// new generation, and an entry is served only at the generation it was
// stored at. The generation is part of the proof, read after the barrier or
// probe and before the tmux call, so output that arrives during the call
// keeps the result out of the cache.
//
// The cache is bounded: cachePerPane keys per pane, cacheMaxPanes panes
// (least recently used go first) and cacheMaxContent bytes in all. It is
// safe for concurrent use.
type captureCache struct {
	maxPanes, perPane, maxContent int

	mu      sync.Mutex
	seq     uint64                        // source of generations; only grows
	panes   map[tmux.PaneID]*list.Element // of *paneCache
	lru     list.List                     // front: most recently used
	content int                           // bytes of Content held
}

type paneCache struct {
	pane    tmux.PaneID
	gen     uint64
	entries []cacheEntry // most recently used first
}

type cacheEntry struct {
	key   Key
	proof Proof
	c     Result
}

func newCaptureCache() *captureCache {
	return &captureCache{maxPanes: cacheMaxPanes, perPane: cachePerPane, maxContent: cacheMaxContent,
		panes: map[tmux.PaneID]*list.Element{}}
}

// generation returns pane's current generation, to be read before a tmux
// call and handed to put.
func (c *captureCache) generation(pane tmux.PaneID) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.panes[pane]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*paneCache).gen
	}
	c.seq++
	c.panes[pane] = c.lru.PushFront(&paneCache{pane: pane, gen: c.seq})
	c.evict()
	return c.seq
}

// touch starts a new generation for pane: what was cached for it, or is
// being captured now, is stale.
func (c *captureCache) touch(pane tmux.PaneID) {
	c.mu.Lock()
	if e, ok := c.panes[pane]; ok {
		c.remove(e)
	}
	c.mu.Unlock()
}

// touchAll starts a new generation for every pane.
func (c *captureCache) touchAll() {
	c.mu.Lock()
	clear(c.panes)
	c.lru.Init()
	c.content = 0
	c.mu.Unlock()
}

// get returns the capture stored under key if it was stored under proof p
// and the pane has not changed since. Callers must not modify its Content.
func (c *captureCache) get(key Key, p Proof) (Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.panes[key.pane]
	if !ok {
		return Result{}, false
	}
	pc := e.Value.(*paneCache)
	if pc.gen != p.gen {
		return Result{}, false
	}
	for i, ent := range pc.entries {
		if ent.key == key && ent.proof == p {
			copy(pc.entries[1:i+1], pc.entries[:i])
			pc.entries[0] = ent
			c.lru.MoveToFront(e)
			return ent.c, true
		}
	}
	return Result{}, false
}

// put stores a capture taken under key after proof p was established. It
// stores nothing, and returns false, when the pane has changed since p's
// generation or the capture alone is larger than the cache. The cache
// keeps its own copy of Content.
func (c *captureCache) put(key Key, p Proof, capture Result) bool {
	if len(capture.Content) > c.maxContent/c.perPane {
		return false
	}
	capture.Content = bytes.Clone(capture.Content)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.panes[key.pane]
	if !ok || e.Value.(*paneCache).gen != p.gen {
		return false
	}
	pc := e.Value.(*paneCache)
	c.lru.MoveToFront(e)
	for i, ent := range pc.entries {
		if ent.key == key {
			c.content -= len(ent.c.Content)
			pc.entries = append(pc.entries[:i], pc.entries[i+1:]...)
			break
		}
	}
	if len(pc.entries) >= c.perPane {
		last := pc.entries[len(pc.entries)-1]
		c.content -= len(last.c.Content)
		pc.entries = pc.entries[:len(pc.entries)-1]
	}
	pc.entries = append(pc.entries, cacheEntry{})
	copy(pc.entries[1:], pc.entries)
	pc.entries[0] = cacheEntry{key: key, proof: p, c: capture}
	c.content += len(capture.Content)
	c.evict()
	return true
}

// evict drops least recently used panes until the bounds hold. The most
// recently used pane is never dropped.
func (c *captureCache) evict() {
	for c.lru.Len() > 1 && (c.lru.Len() > c.maxPanes || c.content > c.maxContent) {
		c.remove(c.lru.Back())
	}
}

func (c *captureCache) remove(e *list.Element) {
	pc := e.Value.(*paneCache)
	for _, ent := range pc.entries {
		c.content -= len(ent.c.Content)
	}
	c.lru.Remove(e)
	delete(c.panes, pc.pane)
}

// stats returns the panes with state and the bytes of content held.
func (c *captureCache) stats() (panes, content int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.content
}
