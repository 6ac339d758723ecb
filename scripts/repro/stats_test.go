package main

import (
	"math"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"one value", []float64{7}, 50, 7},
		{"median of odd", []float64{3, 1, 2}, 50, 2},
		{"median of even is the lower middle", []float64{4, 1, 3, 2}, 50, 2},
		{"p90 of ten", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 90, 9},
		{"p99 of ten is the max", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 99, 10},
		{"p100", []float64{5, 1, 9}, 100, 9},
		{"p0 is the min", []float64{5, 1, 9}, 0, 1},
		{"p above 100 clamps", []float64{5, 1, 9}, 150, 9},
		{"p99 of 1000", seq(1000), 99, 990},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.xs, tt.p); got != tt.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
			}
		})
	}
	if got := Percentile(nil, 50); !math.IsNaN(got) {
		t.Errorf("Percentile(nil) = %v, want NaN", got)
	}
}

func TestPercentileLeavesInputAlone(t *testing.T) {
	xs := []float64{3, 1, 2}
	Percentile(xs, 50)
	if xs[0] != 3 || xs[1] != 1 || xs[2] != 2 {
		t.Errorf("input = %v, want it unchanged [3 1 2]", xs)
	}
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(n - i)
	}
	return out
}

func TestSummarise(t *testing.T) {
	got := Summarise([]float64{1, 2, 3, 4, 100})
	want := Latencies{N: 5, P50: 3, P90: 100, P99: 100, Max: 100}
	if got != want {
		t.Errorf("Summarise = %+v, want %+v", got, want)
	}
	if got := Summarise(nil); got != (Latencies{}) {
		t.Errorf("Summarise(nil) = %+v, want zero", got)
	}
}

func TestTallyCountsErrorsByClass(t *testing.T) {
	calls := []call{{ms: 1}, {ms: 2, class: "timeout"}, {ms: 3, class: "timeout"}, {ms: 4, class: "no_server"}, {ms: 5}}
	got := tallyOf(calls)
	if got.Calls != 5 || got.OK != 2 {
		t.Errorf("calls, ok = %d, %d, want 5, 2", got.Calls, got.OK)
	}
	if got.Errors["timeout"] != 2 || got.Errors["no_server"] != 1 || len(got.Errors) != 2 {
		t.Errorf("errors = %v, want timeout:2 no_server:1", got.Errors)
	}
	if got.Latencies.P50 != 3 || got.Latencies.Max != 5 {
		t.Errorf("latency = %+v, want p50 3, max 5", got.Latencies)
	}
}

func TestRecorderBetween(t *testing.T) {
	var r recorder
	t0 := time.Now()
	r.calls = []call{{at: t0}, {at: t0.Add(time.Second)}, {at: t0.Add(2 * time.Second)}, {at: t0.Add(3 * time.Second)}}
	tests := []struct {
		from, to time.Duration
		want     int
	}{
		{0, 4 * time.Second, 4},
		{time.Second, 3 * time.Second, 2}, // [from, to)
		{5 * time.Second, 6 * time.Second, 0},
		{-time.Second, 0, 0},
	}
	for _, tt := range tests {
		if got := len(r.between(t0.Add(tt.from), t0.Add(tt.to))); got != tt.want {
			t.Errorf("between(%v, %v) = %d calls, want %d", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestCPUTrackerSumsServers(t *testing.T) {
	var c cpuTracker
	steps := []struct {
		pid  int
		cur  float64
		ok   bool
		want float64
	}{
		{10, 5, true, 5},
		{10, 8, true, 8},
		{10, 0, false, 8},  // sample failed: keep the last value
		{20, 1, true, 9},   // a new server: the old one's 8 ms stay counted
		{20, 4, true, 12},  // the new one's grow
		{30, 0, false, 12}, // dead before its first sample
		{30, 2.5, true, 14.5},
	}
	for i, s := range steps {
		if got := c.total(s.pid, s.cur, s.ok); got != s.want {
			t.Errorf("step %d: total = %v, want %v", i, got, s.want)
		}
	}
}
