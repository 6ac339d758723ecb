package main

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

func TestJudge(t *testing.T) {
	good := func(agents int) Step {
		return Step{StepSpec: StepSpec{Sessions: 8, PanesPerSession: 1, Agents: agents},
			tally: tally{Calls: 100, Captures: Latency{N: 90, P50: 1, P99: 20}, Waits: Latency{N: 10, P50: 80, P99: 120}}}
	}
	withErrors := good(8)
	withErrors.Errors = map[string]int{"capture:rate_limited": 3}
	withStale := good(8)
	withStale.Stale = []string{"agent 2: capture of %4 after \"YY2-1.\" printed lacks it"}
	slow := good(64)
	slow.Captures.P99 = 251
	atBound := good(64)
	atBound.Captures.P99 = 250
	idle := good(1)
	idle.Calls, idle.Captures = 0, Latency{}
	noWaits := good(8)
	noWaits.Waits = Latency{}
	restarted := good(8)
	restarted.Restarts = 1
	tests := []struct {
		name     string
		steps    []Step
		leaked   []string
		restarts int
		failed   []string // the verdicts that fail
	}{
		{"all good", []Step{good(1), good(8)}, nil, 0, nil},
		{"errors", []Step{good(1), withErrors}, nil, 0, []string{"no errors"}},
		{"stale", []Step{withStale}, nil, 0, []string{"no stale capture"}},
		{"slow p99", []Step{good(1), slow}, nil, 0, []string{"capture p99"}},
		{"p99 at the bound passes", []Step{atBound}, nil, 0, nil},
		{"a step without calls", []Step{good(8), idle}, nil, 0, []string{"every step ran"}},
		{"a step without marker waits", []Step{noWaits}, nil, 0, []string{"every step ran"}},
		{"a restart", []Step{restarted}, nil, 0, []string{"every step ran"}},
		{"no steps at all", nil, nil, 0, []string{"no errors", "every step ran"}},
		{"leaked", []Step{good(1)}, []string{"123 (tmux)"}, 0, []string{"cleanup"}},
		{"the server died between steps", []Step{good(1)}, nil, 1, []string{"server stayed up"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := Judge(tt.steps, tt.restarts, "killed by signal", tt.leaked, BoundsFor(4))
			var failed []string
			for _, v := range vs {
				if !v.Pass {
					failed = append(failed, v.Name)
				}
			}
			if strings.Join(failed, ",") != strings.Join(tt.failed, ",") {
				t.Errorf("failed verdicts = %v, want %v (%+v)", failed, tt.failed, vs)
			}
			if got, want := loadtest.Passed(vs), len(tt.failed) == 0; got != want {
				t.Errorf("Passed = %v, want %v", got, want)
			}
		})
	}
}

// TestMarkdownTable: one row per step, as many cells as the header.
func TestMarkdownTable(t *testing.T) {
	r := &Report{Profile: "smoke", Settings: map[string]any{"hz_per_agent": 5.0},
		Steps: []Step{{StepSpec: StepSpec{Sessions: 8, PanesPerSession: 1, Agents: 1}, Panes: 9}, {StepSpec: StepSpec{Sessions: 8, PanesPerSession: 1, Agents: 8, Output: true}, Panes: 17}}}
	r.Verdicts = Judge(r.Steps, 0, "", nil, BoundsFor(4))
	md := markdown(r)
	var rows []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| ") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 3 {
		t.Fatalf("%d table lines, want a header and 2 rows:\n%s", len(rows), md)
	}
	for _, row := range rows {
		if got := strings.Count(row, "|") - 1; got != len(tableHeader) {
			t.Errorf("%d cells, want %d: %s", got, len(tableHeader), row)
		}
	}
	if !strings.Contains(rows[2], "| 17 | 8 | yes |") {
		t.Errorf("row %q lacks panes, agents, output", rows[2])
	}
}
