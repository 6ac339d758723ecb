package main

import (
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// Latency is the p50 and p99 of a set of calls, in milliseconds; zero
// for no calls.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

func latencyOf(ms []float64) Latency {
	l := loadtest.Summarise(ms)
	return Latency{N: l.N, P50: l.P50, P99: l.P99, Max: l.Max}
}

// Call kinds: what an agent asked tmux-mcp.
const (
	kindCapture = "capture" // capture_pane
	kindWait    = "wait"    // run_command, or send_keys then wait_for_text
)

// call is one finished tool call of an agent.
type call struct {
	kind  string
	ms    float64
	class string // "" for success, else the error class
}

// recorder collects the calls of one step from every agent. It is safe
// for concurrent use.
type recorder struct {
	mu    sync.Mutex
	calls []call
	stale []string       // what each stale capture missed
	fresh map[string]int // captures by how tmux-mcp proved them fresh
	// details is the first failure's text per kind:class.
	details map[string]string
	closed  bool
}

// freshness counts a successful capture by its freshness field
// ("watcher", "probe", "none"; "?" when the result has none).
func (r *recorder) freshness(how string) {
	if how == "" {
		how = "?"
	}
	r.mu.Lock()
	if !r.closed {
		if r.fresh == nil {
			r.fresh = map[string]int{}
		}
		r.fresh[how]++
	}
	r.mu.Unlock()
}

// reset ends the warm-up: successful calls so far no longer count;
// failures and stale captures still do.
func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.calls[:0]
	for _, c := range r.calls {
		if c.class != "" {
			kept = append(kept, c)
		}
	}
	r.calls, r.fresh = kept, nil
}

func (r *recorder) add(kind string, start time.Time, class string) {
	r.addDetail(kind, start, class, "")
}

// addDetail is add for a failure, with what went wrong; the first detail
// of each kind and class is kept for the report.
func (r *recorder) addDetail(kind string, start time.Time, class, detail string) {
	ms := float64(time.Since(start).Microseconds()) / 1000
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.calls = append(r.calls, call{kind: kind, ms: ms, class: class})
	if class != "" && detail != "" {
		if r.details == nil {
			r.details = map[string]string{}
		}
		if _, ok := r.details[kind+":"+class]; !ok {
			r.details[kind+":"+class] = detail
		}
	}
}

func (r *recorder) addStale(detail string) {
	r.mu.Lock()
	if !r.closed {
		r.stale = append(r.stale, detail)
	}
	r.mu.Unlock()
}

// close stops recording (calls still in flight when the step ends do not
// count) and returns what was recorded.
func (r *recorder) close() recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return recorded{calls: r.calls, stale: r.stale, fresh: r.fresh, details: r.details}
}

// recorded is what a recorder holds when the step ends.
type recorded struct {
	calls   []call
	stale   []string
	fresh   map[string]int
	details map[string]string
}

// tally summarises calls: counts, error classes, latency per kind.
type tally struct {
	Calls    int            `json:"calls"`
	Errors   map[string]int `json:"errors,omitempty"`
	Captures Latency        `json:"capture_latency"`
	Waits    Latency        `json:"wait_latency"`
}

// errorCount is the number of failed calls.
func (t tally) errorCount() int {
	n := 0
	for _, v := range t.Errors {
		n += v
	}
	return n
}

func tallyOf(calls []call) tally {
	t := tally{Calls: len(calls)}
	var capMs, waitMs []float64
	for _, c := range calls {
		if c.class != "" {
			if t.Errors == nil {
				t.Errors = map[string]int{}
			}
			t.Errors[c.kind+":"+c.class]++
			continue
		}
		switch c.kind {
		case kindCapture:
			capMs = append(capMs, c.ms)
		case kindWait:
			waitMs = append(waitMs, c.ms)
		}
	}
	t.Captures, t.Waits = latencyOf(capMs), latencyOf(waitMs)
	return t
}
