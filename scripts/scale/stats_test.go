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
		{"empty", nil, 50, math.NaN()},
		{"one", []float64{7}, 99, 7},
		{"p50 of four", []float64{4, 1, 3, 2}, 50, 2},
		{"p99 of hundred is the 99th", hundred(), 99, 99},
		{"p100 is the max", hundred(), 100, 100},
		{"p0 is the min", []float64{5, 3, 9}, 0, 3},
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

func hundred() []float64 {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(100 - i)
	}
	return xs
}

func TestTallyOf(t *testing.T) {
	calls := []call{
		{kind: kindCapture, ms: 1}, {kind: kindCapture, ms: 3}, {kind: kindCapture, ms: 2},
		{kind: kindWait, ms: 100}, {kind: kindWait, ms: 50, class: "marker_not_seen"},
		{kind: kindCapture, ms: 9, class: "rate_limited"}, {kind: kindCapture, ms: 9, class: "rate_limited"},
	}
	got := tallyOf(calls)
	if got.Calls != 7 || got.errorCount() != 3 {
		t.Errorf("calls %d errors %d, want 7 and 3", got.Calls, got.errorCount())
	}
	if got.Errors["capture:rate_limited"] != 2 || got.Errors["wait:marker_not_seen"] != 1 {
		t.Errorf("errors = %v, want capture:rate_limited 2, wait:marker_not_seen 1", got.Errors)
	}
	// Failed calls do not count in the latencies.
	if want := (Latency{N: 3, P50: 2, P99: 3, Max: 3}); got.Captures != want {
		t.Errorf("captures = %+v, want %+v", got.Captures, want)
	}
	if want := (Latency{N: 1, P50: 100, P99: 100, Max: 100}); got.Waits != want {
		t.Errorf("waits = %+v, want %+v", got.Waits, want)
	}
}

// TestRecorderReset: the warm-up's successful calls and freshness do not
// count; its failures and stale captures do, and nothing counts after
// close.
func TestRecorderReset(t *testing.T) {
	var r recorder
	now := time.Now()
	r.add(kindCapture, now, "")
	r.freshness("watcher")
	r.addDetail(kindCapture, now, "rate_limited", "first")
	r.addDetail(kindCapture, now, "rate_limited", "second")
	r.addStale("agent 1: lacks marker")
	r.reset()
	r.add(kindCapture, now, "")
	r.freshness("probe")
	got := r.close()
	r.add(kindCapture, now, "")
	r.addStale("late")
	r.freshness("none")
	if len(got.calls) != 3 {
		t.Errorf("calls = %d, want 3 (two warm-up failures, one measured call)", len(got.calls))
	}
	if len(got.stale) != 1 {
		t.Errorf("stale = %v, want the warm-up's one", got.stale)
	}
	if want := map[string]int{"probe": 1}; len(got.fresh) != 1 || got.fresh["probe"] != 1 {
		t.Errorf("fresh = %v, want %v", got.fresh, want)
	}
	if got.details["capture:rate_limited"] != "first" {
		t.Errorf("details = %v, want the first failure's text", got.details)
	}
}

func TestSummarise(t *testing.T) {
	spec := StepSpec{Sessions: 64, PanesPerSession: 1, Agents: 8}
	a := snapshot{at: 10, mcpCPUms: 1000, tmuxCPUms: 200,
		health: health{Commands: 100, Captures: 40, Barriers: 50, CacheHits: 10, Restarts: 1}}
	b := snapshot{at: 14, mcpCPUms: 1100, tmuxCPUms: 240, mcpRSS: 30 << 20, tmuxRSS: 8 << 20, tmuxFDs: 70,
		health: health{Commands: 300, Captures: 60, Barriers: 150, CacheHits: 90, Watchers: 32, Restarts: 1}}
	calls := make([]call, 200)
	for i := range calls {
		calls[i] = call{kind: kindCapture, ms: 1}
	}
	got := summarise(spec, 80, recorded{calls: calls, fresh: map[string]int{"watcher": 150, "probe": 50}}, a, b)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"seconds", got.Seconds, 4},
		{"calls/s", got.CallsPerSec, 50},
		{"tmux-mcp CPU µs/call", got.MCPCPUusPerCall, 500},
		{"tmux CPU ms/s", got.TmuxCPUmsPerSec, 10},
		{"tmux CPU µs/call", got.TmuxCPUusPerCall, 200},
		{"commands/call", got.CommandsPerCall, 1},
		{"captures/call", got.CapturesPerCall, 0.1},
		{"barriers/call", got.BarriersPerCall, 0.5},
		{"cache hits/call", got.CacheHitsPerCall, 0.4},
		{"watchers", float64(got.Watchers), 32},
		{"restarts", float64(got.Restarts), 0},
		{"panes", float64(got.Panes), 80},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if got := freshText(got.Freshness); got != "75/25/0" {
		t.Errorf("freshText = %q, want 75/25/0", got)
	}
}

// TestSummariseCounterReset: a counter that went back (the server
// restarted under tmux-mcp) gives 0, not a wrapped uint64.
func TestSummariseCounterReset(t *testing.T) {
	a := snapshot{at: 0, health: health{Commands: 500}}
	b := snapshot{at: 1, health: health{Commands: 20, Restarts: 1}}
	got := summarise(StepSpec{}, 1, recorded{calls: []call{{kind: kindCapture}}}, a, b)
	if got.CommandsPerCall != 0 || got.Restarts != 1 {
		t.Errorf("commands/call %v restarts %d, want 0 and 1", got.CommandsPerCall, got.Restarts)
	}
}
