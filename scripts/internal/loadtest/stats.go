package loadtest

import (
	"math"
	"slices"
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
