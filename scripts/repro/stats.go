package main

import (
	"math"
	"slices"
	"sync"
	"time"
)

// Percentile returns the p-th percentile (0 <= p <= 100) of xs by the
// nearest-rank method: the smallest value such that at least p% of the
// values are at or below it. It returns NaN for no values. xs need not be
// sorted and is not modified.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return percentileSorted(s, p)
}

func percentileSorted(s []float64, p float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	p = min(max(p, 0), 100)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[max(rank, 1)-1]
}

// Latencies summarises call latencies in milliseconds.
type Latencies struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P90 float64 `json:"p90_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// Summarise returns the percentiles of ms; all zero for no values.
func Summarise(ms []float64) Latencies {
	if len(ms) == 0 {
		return Latencies{}
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	return Latencies{N: len(s), P50: percentileSorted(s, 50), P90: percentileSorted(s, 90),
		P99: percentileSorted(s, 99), Max: s[len(s)-1]}
}

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
	Calls     int            `json:"calls"`
	OK        int            `json:"ok"`
	Errors    map[string]int `json:"errors,omitempty"`
	Latencies Latencies      `json:"latency"`
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
	t.Latencies = Summarise(ms)
	return t
}
