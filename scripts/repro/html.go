package main

import (
	"fmt"
	"html/template"
	"io"
	"math"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// rate turns a cumulative counter into a per-second series.
func rate(samples []Sample, get func(Sample) float64) []loadtest.Pt {
	var out []loadtest.Pt
	for i := 1; i < len(samples); i++ {
		dt := samples[i].T - samples[i-1].T
		if dt <= 0 {
			continue
		}
		out = append(out, loadtest.Pt{X: samples[i].T, Y: math.Max(get(samples[i])-get(samples[i-1]), 0) / dt})
	}
	return out
}

// line is a sample value as a series.
func line(samples []Sample, get func(Sample) float64) []loadtest.Pt {
	out := make([]loadtest.Pt, 0, len(samples))
	for _, s := range samples {
		out = append(out, loadtest.Pt{X: s.T, Y: get(s)})
	}
	return out
}

// charts builds the report's charts.
func charts(r *Report) []template.HTML {
	s := r.Samples
	xMax := r.Seconds
	var marks []loadtest.Marker
	for _, f := range append(append([]Fault(nil), r.Faults...), r.Unplanned...) {
		if f.Skipped != "" {
			continue
		}
		marks = append(marks, loadtest.Marker{X: f.At, Label: f.Kind, Color: "#c62828"})
		if f.RecoveredMs >= 0 {
			marks = append(marks, loadtest.Marker{X: f.At + f.RecoveredMs/1000, Label: "back", Color: "#2e7d32"})
		}
	}
	var bands []loadtest.Band
	for _, p := range r.Phases {
		bands = append(bands, loadtest.Band{From: p.Start, To: p.End, Label: p.Name})
	}
	// The charts take the page's width, one above the other, with log
	// axes down to 0.01 ms.
	frame := loadtest.Frame{W: 900, H: 260, PadL: 64, PadR: 16, PadT: 34, PadB: 28, LogFloor: 0.01}
	mk := func(title, unit string, log bool, ss ...loadtest.Series) template.HTML {
		return loadtest.Chart{Frame: frame, Title: title, Unit: unit, Log: log, X: loadtest.TimeAxis{Max: xMax},
			Series: ss, Marks: marks, Bands: bands, Legend: true}.SVG()
	}
	f := func(o Opt) float64 { return float64(o) }
	return []template.HTML{
		mk("Call latency per second", "ms, log scale", true,
			loadtest.Series{Name: "raw p50", Color: "#1565c0", Pts: line(s, func(x Sample) float64 { return f(x.RawP50) })},
			loadtest.Series{Name: "raw p99", Color: "#90caf9", Pts: line(s, func(x Sample) float64 { return f(x.RawP99) })},
			loadtest.Series{Name: "supervised p50", Color: "#ef6c00", Pts: line(s, func(x Sample) float64 { return f(x.SupP50) })},
			loadtest.Series{Name: "supervised p99", Color: "#ffcc80", Pts: line(s, func(x Sample) float64 { return f(x.SupP99) })},
			loadtest.Series{Name: "agent p50", Color: "#6a1b9a", Pts: line(s, func(x Sample) float64 { return f(x.AgentP50) })}),
		mk("Calls made vs tmux commands issued", "per second, log scale", true,
			loadtest.Series{Name: "raw calls (each a tmux command)", Color: "#1565c0", Pts: rate(s, func(x Sample) float64 { return float64(x.RawCalls) })},
			loadtest.Series{Name: "supervised + agent calls", Color: "#ef6c00", Pts: rate(s, func(x Sample) float64 { return float64(x.SupCalls + x.AgentCalls) })},
			loadtest.Series{Name: "tmux commands from tmux-mcp", Color: "#2e7d32", Pts: rate(s, func(x Sample) float64 { return float64(x.TmuxCommands) })},
			loadtest.Series{Name: "of which captures", Color: "#c62828", Pts: rate(s, func(x Sample) float64 { return float64(x.Captures) })},
			loadtest.Series{Name: "barrier round trips", Color: "#8d6e63", Pts: rate(s, func(x Sample) float64 { return float64(x.Barriers) })}),
		mk("Server RSS", "MiB", false,
			loadtest.Series{Name: "tmux server RSS", Color: "#1565c0", Pts: line(s, func(x Sample) float64 { return float64(x.ServerRSS) / (1 << 20) })},
			loadtest.Series{Name: "tmux-mcp RSS", Color: "#ef6c00", Pts: line(s, func(x Sample) float64 { return float64(x.MCPRSS) / (1 << 20) })}),
		mk("Open file descriptors", "count", false,
			loadtest.Series{Name: "tmux server fds", Color: "#1565c0", Pts: line(s, func(x Sample) float64 { return float64(x.ServerFDs) })},
			loadtest.Series{Name: "tmux-mcp fds", Color: "#ef6c00", Pts: line(s, func(x Sample) float64 { return float64(x.MCPFDs) })}),
		mk("Server CPU time, all server processes", "ms, cumulative", false,
			loadtest.Series{Name: "tmux server CPU", Color: "#1565c0", Pts: line(s, func(x Sample) float64 { return x.ServerCPUms })}),
	}
}

var page = loadtest.NewPage("report", template.FuncMap{
	"ms":    msOrDash,
	"mib":   mib,
	"dash":  orDash,
	"yes":   yesNo,
	"f1":    func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"per1k": func(cpu float64, calls int) float64 { return cpu * 1000 / float64(calls) },
	"above": func(idle *Phase, p Phase) string {
		if idle == nil || idle.End <= idle.Start || p.Workload == "idle" {
			return "-"
		}
		return fmt.Sprintf("%.1f", p.ServerCPUms-idle.ServerCPUms/(idle.End-idle.Start)*(p.End-p.Start))
	},
	"lost": lostText,
}, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tmux-mcp soak report</title>
<style>
{{template "style"}}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f5f8}
svg{display:block;margin:8px 0}
svg .t{font-size:13px;font-weight:bold}svg .y{font-size:10px;text-anchor:end}svg .x{font-size:10px;text-anchor:middle}
svg .l{font-size:11px}svg .m{font-size:10px}svg .b{font-size:9px;fill:#777}svg .g{stroke:#e3e3e3}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}
.small{color:#666;font-size:12px}
</style></head><body>
<h1>tmux-mcp soak report: {{template "passfail" .R.Passed}}</h1>
<div class="small">{{.R.Started.Format "2006-01-02 15:04:05 MST"}} · profile {{.R.Profile}} · {{printf "%.0f" .R.Seconds}} s ·
{{.R.Host.CPUs}} CPUs · {{.R.Host.Tmux}} · {{.R.Host.TmuxMCP}} · {{.R.Host.Go}} · server CPU from {{.R.Host.CPUClock}}</div>

<h2>Charts</h2>
<p class="small">Shaded bands are phases; red dashed lines are faults, green ones the moment tmux-mcp reported the server back.</p>
{{range .Charts}}{{.}}{{end}}

<h2>Incident workload: polling a silent pane</h2>
<table><tr><th>workload</th><th>calls</th><th>errors</th><th>capture-pane reaching tmux</th><th>all tmux commands</th><th>barriers</th><th>cache hits</th><th>server CPU ms</th><th>per 1,000 calls</th><th>above idle</th><th>p50 ms</th><th>p99 ms</th><th>RSS start → end</th><th>fds</th></tr>
{{range .R.Phases}}{{if ne .Workload "mixed"}}<tr><td>{{.Name}}</td><td class="n">{{.Calls}}</td><td class="n">{{len .Errors}}{{range $k, $v := .Errors}} {{$k}}:{{$v}}{{end}}</td><td class="n">{{.CaptureCommands}}</td><td class="n">{{.TmuxCommands}}</td><td class="n">{{.Barriers}}</td><td class="n">{{.CacheHits}}</td><td class="n">{{f1 .ServerCPUms}}</td><td class="n">{{if .Calls}}{{f1 (per1k .ServerCPUms .Calls)}}{{else}}-{{end}}</td><td class="n">{{above $.Idle .}}</td><td class="n">{{f1 .Latencies.P50}}</td><td class="n">{{f1 .Latencies.P99}}</td><td>{{mib .RSSStart}} → {{mib .RSSEnd}}</td><td class="n">{{.FDsStart}} → {{.FDsEnd}}</td></tr>{{end}}{{end}}
</table>
<p class="small">Raw calls are each one <code>tmux capture-pane -p</code> subprocess. For supervised calls, "capture-pane reaching tmux" is tmux-mcp's own count (server_health captures), "all tmux commands" its commands counter, "barriers" the round trips on a watcher connection that proved a cached capture fresh, and "cache hits" the captures served without a capture-pane. For raw phases "all tmux commands" is the raw calls plus whatever tmux-mcp sent meanwhile. "Above idle" subtracts the idle phase's server CPU rate (tmux-mcp's monitor probes included) over the phase's length.</p>

{{template "verdicts" .R.Verdicts}}

<h2>Faults</h2>
<table><tr><th>fault</th><th>at</th><th>server lost</th><th>detected in</th><th>cause</th><th>recovered in</th><th>objects lost</th><th>failed calls</th><th>note</th></tr>
{{range .Faults}}<tr><td>{{.Kind}}</td>{{if .Skipped}}<td colspan="7">skipped</td><td>{{.Skipped}}</td>{{else}}<td class="n">{{printf "%.1f" .At}} s</td><td>{{yes .Died}}</td><td class="n">{{ms .DetectedMs}}</td><td>{{dash .Cause}}</td><td class="n">{{ms .RecoveredMs}}</td><td class="n">{{lost .}}</td><td class="n">{{.Errors}}</td><td>{{dash .Note}}</td>{{end}}</tr>{{end}}
</table>

<h2>Agents (mixed phase)</h2>
<p>{{.R.Agents.Calls}} calls, {{.R.Agents.OK}} ok{{range $k, $v := .R.Agents.Errors}}, {{$k}}: {{$v}}{{end}}; latency p50 {{f1 .R.Agents.Latencies.P50}} ms, p99 {{f1 .R.Agents.Latencies.P99}} ms.</p>

<h2>Bounds</h2>
<ul>{{range .BoundsDoc}}<li>{{.}}</li>{{end}}</ul>
{{if .R.Notes}}<h2>Notes</h2><ul>{{range .R.Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
<p class="small">Leaked processes: {{template "leaked" .R.Leaked}}. tmux-mcp goroutines: {{.R.Host.Goroutines}}.</p>

<h2>tmux-mcp diagnose</h2>
<pre>{{.R.Diagnose}}</pre>
</body></html>
`)

// WriteHTML writes the self-contained report page.
func WriteHTML(w io.Writer, r *Report) error {
	var idle *Phase
	for i := range r.Phases {
		if r.Phases[i].Workload == "idle" {
			idle = &r.Phases[i]
		}
	}
	return page.Execute(w, struct {
		R         *Report
		Charts    []template.HTML
		Idle      *Phase
		BoundsDoc []string
		Faults    []Fault
	}{r, charts(r), idle, BoundsDoc, append(append([]Fault(nil), r.Faults...), r.Unplanned...)})
}
