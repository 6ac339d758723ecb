package loadtest

import (
	"math"
	"testing"
)

func TestPercentile(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"empty", nil, 50, math.NaN()},
		{"one value", []float64{7}, 50, 7},
		{"one value, p99", []float64{7}, 99, 7},
		{"median of odd", []float64{3, 1, 2}, 50, 2},
		{"median of even is the lower middle", []float64{4, 1, 3, 2}, 50, 2},
		{"p90 of ten", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 90, 9},
		{"p99 of ten is the max", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 99, 10},
		{"p99 of hundred is the 99th", seq(100), 99, 99},
		{"p100 of hundred is the max", seq(100), 100, 100},
		{"p99 of 1000", seq(1000), 99, 990},
		{"p100", []float64{5, 1, 9}, 100, 9},
		{"p0 is the min", []float64{5, 1, 9}, 0, 1},
		{"p above 100 clamps", []float64{5, 1, 9}, 150, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Percentile(tt.xs, tt.p)
			if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
			}
		})
	}
}

func TestPercentileLeavesInputAlone(t *testing.T) {
	xs := []float64{3, 1, 2}
	Percentile(xs, 50)
	if xs[0] != 3 || xs[1] != 1 || xs[2] != 2 {
		t.Errorf("input = %v, want it unchanged [3 1 2]", xs)
	}
}

// seq returns n, n-1, ..., 1.
func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(n - i)
	}
	return out
}

func TestSummarise(t *testing.T) {
	tests := []struct {
		name string
		ms   []float64
		want Latencies
	}{
		{"five", []float64{1, 2, 3, 4, 100}, Latencies{N: 5, P50: 3, P90: 100, P99: 100, Max: 100}},
		{"unsorted", []float64{3, 1, 2}, Latencies{N: 3, P50: 2, P90: 3, P99: 3, Max: 3}},
		{"none is zero", nil, Latencies{}},
	}
	for _, tt := range tests {
		if got := Summarise(tt.ms); got != tt.want {
			t.Errorf("%s: Summarise(%v) = %+v, want %+v", tt.name, tt.ms, got, tt.want)
		}
	}
}
