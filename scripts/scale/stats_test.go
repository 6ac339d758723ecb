package main

import (
	"math"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

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
		health: loadtest.Health{Commands: 100, Captures: 40, Barriers: 50, CacheHits: 10, Restarts: 1}}
	b := snapshot{at: 14, mcpCPUms: 1100, tmuxCPUms: 240, mcpRSS: 30 << 20, tmuxRSS: 8 << 20, tmuxFDs: 70,
		health: loadtest.Health{Commands: 300, Captures: 60, Barriers: 150, CacheHits: 90, Watchers: 32, Restarts: 1}}
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
	a := snapshot{at: 0, health: loadtest.Health{Commands: 500}}
	b := snapshot{at: 1, health: loadtest.Health{Commands: 20, Restarts: 1}}
	got := summarise(StepSpec{}, 1, recorded{calls: []call{{kind: kindCapture}}}, a, b)
	if got.CommandsPerCall != 0 || got.Restarts != 1 {
		t.Errorf("commands/call %v restarts %d, want 0 and 1", got.CommandsPerCall, got.Restarts)
	}
}
