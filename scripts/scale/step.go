package main

import "github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"

// StepSpec is one point of the curve: how many sessions (and panes per
// session), how many agents, whether some panes print continuously.
type StepSpec struct {
	Sessions        int  `json:"sessions"`
	PanesPerSession int  `json:"panes_per_session"`
	Agents          int  `json:"agents"`
	Output          bool `json:"output"`
}

// snapshot is what the harness reads before and after a step: the two
// processes from /proc and tmux-mcp's counters from server_health.
type snapshot struct {
	at        float64 // seconds since the run began
	mcpCPUms  float64
	mcpRSS    uint64
	tmuxCPUms float64
	tmuxRSS   uint64
	tmuxFDs   int
	health    loadtest.Health
}

// Step is one measured step: the spec, the calls and what they cost.
type Step struct {
	StepSpec
	Panes   int     `json:"panes"` // every pane of the server, as tmux lists them
	Seconds float64 `json:"seconds"`
	tally
	Stale []string `json:"stale,omitempty"`
	// Freshness counts the successful captures by how tmux-mcp proved
	// them fresh (capture_pane's freshness field): "watcher" (a barrier
	// on a watcher connection), "probe" (no watcher: a state probe),
	// "none" (went to tmux).
	Freshness map[string]int `json:"freshness,omitempty"`
	// ErrorDetails is the first failure's text per kind:class.
	ErrorDetails map[string]string `json:"error_details,omitempty"`
	// CPU per call is the process's CPU time over the step divided by
	// the calls that finished in it (its idle work included).
	MCPCPUusPerCall  float64 `json:"mcp_cpu_us_per_call"`
	MCPRSS           uint64  `json:"mcp_rss"`
	TmuxCPUmsPerSec  float64 `json:"tmux_cpu_ms_per_s"`
	TmuxCPUusPerCall float64 `json:"tmux_cpu_us_per_call"`
	TmuxRSS          uint64  `json:"tmux_rss"`
	TmuxFDs          int     `json:"tmux_fds"`
	// Per call, from server_health's counters (tmux-mcp's own count):
	// every command it sent tmux (its monitor's probes included), the
	// capture-pane commands among them, the barrier round trips on
	// watcher connections, and the captures answered from cache.
	CommandsPerCall  float64 `json:"tmux_commands_per_call"`
	CapturesPerCall  float64 `json:"tmux_captures_per_call"`
	BarriersPerCall  float64 `json:"barriers_per_call"`
	CacheHitsPerCall float64 `json:"cache_hits_per_call"`
	Watchers         int     `json:"watchers"`
	CallsPerSec      float64 `json:"calls_per_s"`
	Restarts         int     `json:"restarts"`
}

// summarise turns a step's calls and its two snapshots into a Step.
func summarise(spec StepSpec, panes int, rec recorded, a, b snapshot) Step {
	calls := rec.calls
	s := Step{StepSpec: spec, Panes: panes, Seconds: b.at - a.at, tally: tallyOf(calls), Stale: rec.stale, Freshness: rec.fresh,
		ErrorDetails: rec.details,
		MCPRSS:       b.mcpRSS, TmuxRSS: b.tmuxRSS, TmuxFDs: b.tmuxFDs, Watchers: b.health.Watchers,
		Restarts: b.health.Restarts - a.health.Restarts}
	if s.Seconds > 0 {
		s.TmuxCPUmsPerSec = (b.tmuxCPUms - a.tmuxCPUms) / s.Seconds
		s.CallsPerSec = float64(s.Calls) / s.Seconds
	}
	if n := float64(s.Calls); n > 0 {
		s.MCPCPUusPerCall = (b.mcpCPUms - a.mcpCPUms) * 1000 / n
		s.TmuxCPUusPerCall = (b.tmuxCPUms - a.tmuxCPUms) * 1000 / n
		s.CommandsPerCall = float64(delta(b.health.Commands, a.health.Commands)) / n
		s.CapturesPerCall = float64(delta(b.health.Captures, a.health.Captures)) / n
		s.BarriersPerCall = float64(delta(b.health.Barriers, a.health.Barriers)) / n
		s.CacheHitsPerCall = float64(delta(b.health.CacheHits, a.health.CacheHits)) / n
	}
	return s
}

// delta is b-a for counters, 0 when a counter went back (a restart).
func delta(b, a uint64) uint64 {
	if b < a {
		return 0
	}
	return b - a
}
