package main

import (
	"slices"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// call is one finished call of a workload.
type call struct {
	at    time.Time // when it finished
	ms    float64
	class string // "" for success, else the error class
}

// recorder collects the calls of one workload. It is safe for concurrent
// use.
type recorder struct {
	mu    sync.Mutex
	calls []call
}

func (r *recorder) add(start time.Time, class string) {
	r.mu.Lock()
	// Read the clock under the lock so that calls stay sorted by time.
	now := time.Now()
	r.calls = append(r.calls, call{at: now, ms: float64(now.Sub(start).Microseconds()) / 1000, class: class})
	r.mu.Unlock()
}

// between returns the calls that finished in [from, to).
func (r *recorder) between(from, to time.Time) []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	i, _ := slices.BinarySearchFunc(r.calls, from, func(c call, t time.Time) int { return c.at.Compare(t) })
	j, _ := slices.BinarySearchFunc(r.calls, to, func(c call, t time.Time) int { return c.at.Compare(t) })
	return slices.Clone(r.calls[i:j])
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// tally is the calls, successes, error classes and latencies of a set of
// calls.
type tally struct {
	Calls     int                `json:"calls"`
	OK        int                `json:"ok"`
	Errors    map[string]int     `json:"errors,omitempty"`
	Latencies loadtest.Latencies `json:"latency"`
}

func tallyOf(calls []call) tally {
	t := tally{Calls: len(calls)}
	ms := make([]float64, 0, len(calls))
	for _, c := range calls {
		ms = append(ms, c.ms)
		if c.class == "" {
			t.OK++
			continue
		}
		if t.Errors == nil {
			t.Errors = map[string]int{}
		}
		t.Errors[c.class]++
	}
	t.Latencies = loadtest.Summarise(ms)
	return t
}
