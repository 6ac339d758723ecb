package main

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
)

// pt is one point of a series; a NaN y breaks the line.
type pt struct{ x, y float64 }

// series is one line of a chart.
type series struct {
	name  string
	color string
	pts   []pt
}

// marker is a vertical line at x: a fault (red) or a recovery (green).
type marker struct {
	x     float64
	label string
	color string
}

// band is a shaded stretch of x: a phase.
type band struct {
	from, to float64
	label    string
}

// chart is an SVG line chart.
type chart struct {
	title, unit string
	log         bool // log10 y axis
	series      []series
	marks       []marker
	bands       []band
	xMax        float64
}

const (
	chartW, chartH                 = 900, 260
	padL, padR, padT, padB         = 64, 16, 34, 28
	plotW, plotH                   = chartW - padL - padR, chartH - padT - padB
	logFloor               float64 = 0.01
)

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// yRange is the chart's y extent: [0, nice max] or, on a log axis, whole
// decades around the data.
func (c chart) yRange() (lo, hi float64) {
	maxY := math.Inf(-1)
	minY := math.Inf(1)
	for _, s := range c.series {
		for _, p := range s.pts {
			if math.IsNaN(p.y) || c.log && p.y <= 0 {
				continue
			}
			maxY = max(maxY, p.y)
			minY = min(minY, p.y)
		}
	}
	if math.IsInf(maxY, -1) {
		maxY, minY = 1, 0
	}
	if !c.log {
		return 0, niceCeil(maxY)
	}
	lo = math.Floor(math.Log10(max(minY, logFloor)))
	hi = math.Ceil(math.Log10(max(maxY, logFloor)))
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

func (c chart) svg() template.HTML {
	var b strings.Builder
	lo, hi := c.yRange()
	xMax := c.xMax
	if xMax <= 0 {
		xMax = 1
	}
	sx := func(x float64) float64 { return padL + x/xMax*plotW }
	sy := func(y float64) float64 {
		if c.log {
			y = math.Log10(max(y, logFloor))
		}
		return padT + plotH - (y-lo)/(hi-lo)*plotH
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		chartW, chartH, chartW, chartH, template.HTMLEscapeString(c.title))
	fmt.Fprintf(&b, `<text x="%d" y="14" class="t">%s</text>`, padL, template.HTMLEscapeString(c.title+" ("+c.unit+")"))
	// Phase labels stack downwards where phases are too short for them.
	bxs, btexts := make([]float64, len(c.bands)), make([]string, len(c.bands))
	for i, bd := range c.bands {
		bxs[i], btexts[i] = sx(bd.from)+2, bd.label
	}
	brows := labelRows(bxs, btexts, 4)
	for i, bd := range c.bands {
		if i%2 == 0 {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#f3f5f8"/>`, sx(bd.from), padT, max(sx(bd.to)-sx(bd.from), 0), plotH)
		}
	}
	for i, bd := range c.bands {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="b">%s</text>`, bxs[i], padT+10+brows[i]*labelRowH, template.HTMLEscapeString(bd.label))
	}
	// y grid and labels
	if c.log {
		for d := lo; d <= hi; d++ {
			y := padT + plotH - (d-lo)/(hi-lo)*plotH
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="g"/><text x="%d" y="%.1f" class="y">%s</text>`,
				padL, padL+plotW, y, y, padL-4, y+4, fmtNum(math.Pow(10, d)))
		}
	} else {
		for i := 0; i <= 4; i++ {
			v := hi * float64(i) / 4
			y := sy(v)
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="g"/><text x="%d" y="%.1f" class="y">%s</text>`,
				padL, padL+plotW, y, y, padL-4, y+4, fmtNum(v))
		}
	}
	// x labels
	step := niceCeil(xMax / 8)
	for x := 0.0; x <= xMax+1e-9; x += step {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="x">%ss</text>`, sx(x), chartH-10, fmtNum(x))
	}
	// Labels of markers close together stack in rows instead of
	// overwriting each other.
	xs, texts := make([]float64, len(c.marks)), make([]string, len(c.marks))
	for i, m := range c.marks {
		xs[i], texts[i] = sx(m.x)+2, m.label
	}
	rows := labelRows(xs, texts, plotH/labelRowH-1)
	for i, m := range c.marks {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-dasharray="4 3"/><text x="%.1f" y="%d" class="m" fill="%s">%s</text>`,
			sx(m.x), sx(m.x), padT, padT+plotH, m.color, xs[i], padT+plotH-4-rows[i]*labelRowH, m.color, template.HTMLEscapeString(m.label))
	}
	for _, s := range c.series {
		var d strings.Builder
		pen := false
		for _, p := range s.pts {
			// A log axis has no zero: a zero breaks the line like a gap.
			if math.IsNaN(p.y) || c.log && p.y <= 0 {
				pen = false
				continue
			}
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f ", cmd, sx(p.x), sy(p.y))
			pen = true
		}
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.6"/>`, strings.TrimSpace(d.String()), s.color)
	}
	// legend
	x := float64(padL)
	for _, s := range c.series {
		fmt.Fprintf(&b, `<rect x="%.0f" y="21" width="10" height="10" fill="%s"/><text x="%.0f" y="30" class="l">%s</text>`,
			x, s.color, x+13, template.HTMLEscapeString(s.name))
		x += 20 + 6.5*float64(len(s.name))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/></svg>`, padL, padT, plotW, plotH)
	return template.HTML(b.String()) //nolint:gosec // built from numbers and escaped text
}

func fmtNum(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

// rate turns a cumulative counter into a per-second series.
func rate(samples []Sample, get func(Sample) float64) []pt {
	var out []pt
	for i := 1; i < len(samples); i++ {
		dt := samples[i].T - samples[i-1].T
		if dt <= 0 {
			continue
		}
		out = append(out, pt{samples[i].T, math.Max(get(samples[i])-get(samples[i-1]), 0) / dt})
	}
	return out
}

func line(samples []Sample, get func(Sample) float64) []pt {
	out := make([]pt, 0, len(samples))
	for _, s := range samples {
		out = append(out, pt{s.T, get(s)})
	}
	return out
}

// charts builds the report's charts.
func charts(r *Report) []template.HTML {
	s := r.Samples
	xMax := r.Seconds
	var marks []marker
	for _, f := range append(append([]Fault(nil), r.Faults...), r.Unplanned...) {
		if f.Skipped != "" {
			continue
		}
		marks = append(marks, marker{x: f.At, label: f.Kind, color: "#c62828"})
		if f.RecoveredMs >= 0 {
			marks = append(marks, marker{x: f.At + f.RecoveredMs/1000, label: "back", color: "#2e7d32"})
		}
	}
	var bands []band
	for _, p := range r.Phases {
		bands = append(bands, band{from: p.Start, to: p.End, label: p.Name})
	}
	mk := func(title, unit string, log bool, ss ...series) template.HTML {
		return chart{title: title, unit: unit, log: log, series: ss, marks: marks, bands: bands, xMax: xMax}.svg()
	}
	f := func(o Opt) float64 { return float64(o) }
	return []template.HTML{
		mk("Call latency per second", "ms, log scale", true,
			series{"raw p50", "#1565c0", line(s, func(x Sample) float64 { return f(x.RawP50) })},
			series{"raw p99", "#90caf9", line(s, func(x Sample) float64 { return f(x.RawP99) })},
			series{"supervised p50", "#ef6c00", line(s, func(x Sample) float64 { return f(x.SupP50) })},
			series{"supervised p99", "#ffcc80", line(s, func(x Sample) float64 { return f(x.SupP99) })},
			series{"agent p50", "#6a1b9a", line(s, func(x Sample) float64 { return f(x.AgentP50) })}),
		mk("Calls made vs tmux commands issued", "per second, log scale", true,
			series{"raw calls (each a tmux command)", "#1565c0", rate(s, func(x Sample) float64 { return float64(x.RawCalls) })},
			series{"supervised + agent calls", "#ef6c00", rate(s, func(x Sample) float64 { return float64(x.SupCalls + x.AgentCalls) })},
			series{"tmux commands from tmux-mcp", "#2e7d32", rate(s, func(x Sample) float64 { return float64(x.TmuxCommands) })},
			series{"of which captures", "#c62828", rate(s, func(x Sample) float64 { return float64(x.Captures) })},
			series{"barrier round trips", "#8d6e63", rate(s, func(x Sample) float64 { return float64(x.Barriers) })}),
		mk("Server RSS", "MiB", false,
			series{"tmux server RSS", "#1565c0", line(s, func(x Sample) float64 { return float64(x.ServerRSS) / (1 << 20) })},
			series{"tmux-mcp RSS", "#ef6c00", line(s, func(x Sample) float64 { return float64(x.MCPRSS) / (1 << 20) })}),
		mk("Open file descriptors", "count", false,
			series{"tmux server fds", "#1565c0", line(s, func(x Sample) float64 { return float64(x.ServerFDs) })},
			series{"tmux-mcp fds", "#ef6c00", line(s, func(x Sample) float64 { return float64(x.MCPFDs) })}),
		mk("Server CPU time, all server processes", "ms, cumulative", false,
			series{"tmux server CPU", "#1565c0", line(s, func(x Sample) float64 { return x.ServerCPUms })}),
	}
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{
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
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tmux-mcp soak report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1180px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:22px 0 6px}
.pass{color:#2e7d32;font-weight:bold}.fail{color:#c62828;font-weight:bold}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f5f8}
svg{display:block;margin:8px 0}
svg .t{font-size:13px;font-weight:bold}svg .y{font-size:10px;text-anchor:end}svg .x{font-size:10px;text-anchor:middle}
svg .l{font-size:11px}svg .m{font-size:10px}svg .b{font-size:9px;fill:#777}svg .g{stroke:#e3e3e3}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}
.small{color:#666;font-size:12px}
</style></head><body>
<h1>tmux-mcp soak report: <span class="{{if .R.Passed}}pass{{else}}fail{{end}}">{{if .R.Passed}}PASS{{else}}FAIL{{end}}</span></h1>
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

<h2>Verdicts</h2>
<table><tr><th></th><th>verdict</th><th>detail</th></tr>
{{range .R.Verdicts}}<tr><td class="{{if .Pass}}pass{{else}}fail{{end}}">{{if .Pass}}ok{{else}}FAIL{{end}}</td><td>{{.Name}}</td><td>{{.Detail}}</td></tr>{{end}}
</table>

<h2>Faults</h2>
<table><tr><th>fault</th><th>at</th><th>server lost</th><th>detected in</th><th>cause</th><th>recovered in</th><th>objects lost</th><th>failed calls</th><th>note</th></tr>
{{range .Faults}}<tr><td>{{.Kind}}</td>{{if .Skipped}}<td colspan="7">skipped</td><td>{{.Skipped}}</td>{{else}}<td class="n">{{printf "%.1f" .At}} s</td><td>{{yes .Died}}</td><td class="n">{{ms .DetectedMs}}</td><td>{{dash .Cause}}</td><td class="n">{{ms .RecoveredMs}}</td><td class="n">{{lost .}}</td><td class="n">{{.Errors}}</td><td>{{dash .Note}}</td>{{end}}</tr>{{end}}
</table>

<h2>Agents (mixed phase)</h2>
<p>{{.R.Agents.Calls}} calls, {{.R.Agents.OK}} ok{{range $k, $v := .R.Agents.Errors}}, {{$k}}: {{$v}}{{end}}; latency p50 {{f1 .R.Agents.Latencies.P50}} ms, p99 {{f1 .R.Agents.Latencies.P99}} ms.</p>

<h2>Bounds</h2>
<ul>{{range .BoundsDoc}}<li>{{.}}</li>{{end}}</ul>
{{if .R.Notes}}<h2>Notes</h2><ul>{{range .R.Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
<p class="small">Leaked processes: {{if .R.Leaked}}{{range .R.Leaked}}{{.}}; {{end}}{{else}}none{{end}}. tmux-mcp goroutines: {{.R.Host.Goroutines}}.</p>

<h2>tmux-mcp diagnose</h2>
<pre>{{.R.Diagnose}}</pre>
</body></html>
`))

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
