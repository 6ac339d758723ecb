package main

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// This file draws the report page in the soak report's look (the charts
// are scripts/internal/loadtest's), with agents on the x axis and one
// line per sessions level, dashed when panes printed.

var palette = []string{"#1565c0", "#ef6c00", "#2e7d32", "#6a1b9a", "#c62828", "#00838f", "#8d6e63"}

// legendItem is one line of the shared legend.
type legendItem struct {
	Name, Color string
	Dashed      bool
}

// curves builds one series per sessions level and output, with agents
// on x, of get.
func curves(steps []Step, get func(Step) float64) []loadtest.Series {
	var out []loadtest.Series
	for i, lv := range levelsOf(steps) {
		for _, output := range []bool{false, true} {
			s := loadtest.Series{Name: lv.name(output), Color: palette[i%len(palette)], Dashed: output}
			for _, st := range steps {
				if st.Sessions == lv.sessions && st.PanesPerSession == lv.panes && st.Output == output {
					s.Pts = append(s.Pts, loadtest.Pt{X: float64(st.Agents), Y: get(st)})
				}
			}
			if len(s.Pts) > 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// levelsOf returns the steps' levels in the order they ran.
func levelsOf(steps []Step) []level {
	var out []level
	for _, s := range steps {
		lv := level{s.Sessions, s.PanesPerSession}
		if !slices.Contains(out, lv) {
			out = append(out, lv)
		}
	}
	return out
}

func (lv level) name(output bool) string {
	n := fmt.Sprintf("%d sessions", lv.sessions)
	if lv.panes > 1 {
		n += fmt.Sprintf(" x%d panes", lv.panes)
	}
	if output {
		n += ", printing"
	}
	return n
}

// agentCounts returns the steps' agent counts, ascending.
func agentCounts(steps []Step) []float64 {
	var xs []float64
	for _, s := range steps {
		if x := float64(s.Agents); !slices.Contains(xs, x) {
			xs = append(xs, x)
		}
	}
	slices.Sort(xs)
	return xs
}

// charts builds the report's charts.
func charts(r *Report) ([]template.HTML, []legendItem) {
	xs := agentCounts(r.Steps)
	// Two charts side by side, with log axes down to 0.001 ms; the
	// series' names are in the legend above them all.
	frame := loadtest.Frame{W: 560, H: 260, PadL: 60, PadR: 16, PadT: 34, PadB: 30, LogFloor: 0.001, NoDataMin: 0.1}
	mk := func(title, unit string, log bool, get func(Step) float64) template.HTML {
		return loadtest.Chart{Frame: frame, Title: title, Unit: unit, Log: log,
			X: loadtest.CategoryAxis{Values: xs, Unit: "agents"}, Series: curves(r.Steps, get), Dots: true}.SVG()
	}
	nan := func(ok bool, v float64) float64 {
		if !ok {
			return math.NaN()
		}
		return v
	}
	out := []template.HTML{
		mk("capture_pane p50", "ms, log scale", true, func(s Step) float64 { return nan(s.Captures.N > 0, s.Captures.P50) }),
		mk("capture_pane p99", "ms, log scale", true, func(s Step) float64 { return nan(s.Captures.N > 0, s.Captures.P99) }),
		mk("run_command / wait_for_text p50", "ms, log scale", true, func(s Step) float64 { return nan(s.Waits.N > 0, s.Waits.P50) }),
		mk("tmux-mcp CPU per call", "µs", false, func(s Step) float64 { return s.MCPCPUusPerCall }),
		mk("tmux commands per call", "tmux-mcp's count", false, func(s Step) float64 { return s.CommandsPerCall }),
		mk("capture-pane reaching tmux per call", "count", false, func(s Step) float64 { return s.CapturesPerCall }),
		mk("tmux server CPU", "ms per second", false, func(s Step) float64 { return s.TmuxCPUmsPerSec }),
		mk("tmux-mcp RSS", "MiB", false, func(s Step) float64 { return float64(s.MCPRSS) / (1 << 20) }),
		mk("tmux server RSS", "MiB", false, func(s Step) float64 { return float64(s.TmuxRSS) / (1 << 20) }),
		mk("tmux server fds", "count", false, func(s Step) float64 { return float64(s.TmuxFDs) }),
	}
	var legend []legendItem
	for _, s := range curves(r.Steps, func(Step) float64 { return 0 }) {
		legend = append(legend, legendItem{s.Name, s.Color, s.Dashed})
	}
	return out, legend
}

var page = loadtest.NewPage("report", template.FuncMap{"row": tableRow}, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tmux-mcp scale report</title>
<style>
{{template "style"}}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f5f8;font-size:12px}
.charts{display:flex;flex-wrap:wrap;gap:4px 12px}
svg{display:block;margin:8px 0}
svg .t{font-size:13px;font-weight:bold}svg .y{font-size:10px;text-anchor:end}svg .x{font-size:10px;text-anchor:middle}
.legend span{display:inline-block;margin-right:14px;font-size:12px}.legend i{display:inline-block;width:22px;height:0;border-top:2px solid;vertical-align:middle;margin-right:4px}
.small{color:#666;font-size:12px}
</style></head><body>
<h1>tmux-mcp scale report: {{template "passfail" .R.Passed}}</h1>
<div class="small">{{.R.Started.Format "2006-01-02 15:04:05 MST"}} · profile {{.R.Profile}} · {{printf "%.0f" .R.Seconds}} s ·
{{.R.Host.CPUs}} CPUs · load {{.R.Host.LoadStart}} → {{.R.Host.LoadEnd}} · {{.R.Host.Tmux}} · {{.R.Host.TmuxMCP}} · {{.R.Host.Go}} ·
{{index .R.Settings "hz_per_agent"}} calls/s per agent · streamable HTTP, one MCP session per agent</div>

{{template "verdicts" .R.Verdicts}}

<h2>Curves</h2>
<div class="legend">{{range .Legend}}<span><i style="border-color:{{.Color}}{{if .Dashed}};border-top-style:dashed{{end}}"></i>{{.Name}}</span>{{end}}</div>
<div class="charts">{{range .Charts}}{{.}}{{end}}</div>

<h2>Steps</h2>
<table><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .R.Steps}}<tr>{{range row .}}<td class="n">{{.}}</td>{{end}}</tr>{{end}}
</table>
<p class="small">Each agent is its own MCP session over streamable HTTP on its own connection, with a work pane (a shell in a window of its own, the windows spread over the sessions) and, in printing steps, a pane of its own that prints a line every {{index .R.Settings "noise_period_ms"}} ms (as many printing panes as the largest agent count, in every printing step). An agent makes one call per tick: capture_pane of its work pane (or, every other tick in printing steps, of its printing pane), and every {{index .R.Settings "marker_every_calls"}}th tick a marker command (run_command, or send_keys then wait_for_text, in turn) followed by a capture that must show it. "tmux cmds/call", "capture-pane/call" and "barriers/call" come from tmux-mcp's own counters (server_health: commands, captures, barriers) over the step, divided by the agents' calls; the commands include tmux-mcp's monitor probes. CPU per call is tmux-mcp's CPU time (utime+stime of all its threads, /proc/PID/stat) over the step divided by the calls; the tmux server's comes from /proc/PID/schedstat. "fresh by w/p/n" is how capture_pane said its answer was proven fresh: a barrier on a watcher connection, a probe (no watcher for the session), or neither (read from tmux).</p>

<h2>Bounds</h2>
<ul>{{range .BoundsDoc}}<li>{{.}}</li>{{end}}</ul>
<p class="small">Leaked processes: {{template "leaked" .R.Leaked}}.{{if .R.Error}} Harness error: {{.R.Error}}{{end}}</p>
</body></html>
`)

// writeHTML writes the self-contained report page.
func writeHTML(w io.Writer, r *Report) error {
	cs, legend := charts(r)
	return page.Execute(w, struct {
		R         *Report
		Charts    []template.HTML
		Legend    []legendItem
		Header    []string
		BoundsDoc []string
	}{r, cs, legend, tableHeader, BoundsDoc})
}
