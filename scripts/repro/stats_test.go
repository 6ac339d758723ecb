package main

import (
	"testing"
	"time"
)

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
