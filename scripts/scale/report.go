package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// Report is everything one run measured and decided; report.json is this
// struct.
type Report struct {
	Started  time.Time          `json:"started"`
	Seconds  float64            `json:"seconds"`
	Profile  string             `json:"profile"`
	Host     Host               `json:"host"`
	Settings map[string]any     `json:"settings"`
	Steps    []Step             `json:"steps"`
	Bounds   Bounds             `json:"bounds"`
	Verdicts []loadtest.Verdict `json:"verdicts"`
	Passed   bool               `json:"passed"`
	Leaked   []string           `json:"leaked_processes"`
	// Restarts is how often the tmux server died and tmux-mcp restarted
	// it over the run; LastDeath why it last died.
	Restarts  int    `json:"server_restarts"`
	LastDeath string `json:"last_death,omitempty"`
	Error     string `json:"error,omitempty"`
	log       string // tmux-mcp's stderr, written to tmux-mcp.log
}

// Host describes the machine and the tools of the run.
type Host struct {
	CPUs      int    `json:"cpus"`
	Tmux      string `json:"tmux"`
	TmuxMCP   string `json:"tmux_mcp"`
	Go        string `json:"go"`
	LoadStart string `json:"load_start"`
	LoadEnd   string `json:"load_end"`
}

// writeFiles writes report.json, tmux-mcp.log and report.html into dir.
func writeFiles(dir string, r *Report) error {
	err := loadtest.WriteReport(dir, r,
		loadtest.File{Name: "tmux-mcp.log", Write: func(w io.Writer) error { _, err := io.WriteString(w, r.log); return err }},
		loadtest.File{Name: "report.html", Write: func(w io.Writer) error { return writeHTML(w, r) }})
	if err != nil {
		return fmt.Errorf("scale: %w", err)
	}
	return nil
}

// tableHeader and tableRow are the columns of the Markdown table (stdout,
// docs/scale.md) and of the HTML report's table.
var tableHeader = []string{"sessions", "panes", "agents", "output", "calls/s", "capture p50 ms", "capture p99 ms",
	"wait p50 ms", "tmux-mcp CPU µs/call", "tmux-mcp RSS MiB", "tmux CPU ms/s", "tmux RSS MiB", "tmux fds",
	"tmux cmds/call", "capture-pane/call", "barriers/call", "watchers", "fresh by w/p/n %", "errors", "stale"}

func tableRow(s Step) []string {
	out := "no"
	if s.Output {
		out = "yes"
	}
	return []string{
		fmt.Sprintf("%d x%d", s.Sessions, s.PanesPerSession), fmt.Sprint(s.Panes), fmt.Sprint(s.Agents), out,
		fmt.Sprintf("%.0f", s.CallsPerSec), fmt.Sprintf("%.2f", s.Captures.P50), fmt.Sprintf("%.2f", s.Captures.P99),
		fmt.Sprintf("%.1f", s.Waits.P50), fmt.Sprintf("%.0f", s.MCPCPUusPerCall), mib(s.MCPRSS),
		fmt.Sprintf("%.1f", s.TmuxCPUmsPerSec), mib(s.TmuxRSS), fmt.Sprint(s.TmuxFDs),
		fmt.Sprintf("%.2f", s.CommandsPerCall), fmt.Sprintf("%.2f", s.CapturesPerCall), fmt.Sprintf("%.2f", s.BarriersPerCall),
		fmt.Sprint(s.Watchers), freshText(s.Freshness), fmt.Sprint(s.errorCount()), fmt.Sprint(len(s.Stale)),
	}
}

func mib(b uint64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }

// freshText is the share of captures proven by a watcher barrier, by a
// probe, and by neither (sent to tmux), in percent.
func freshText(m map[string]int) string {
	total := 0
	for _, v := range m {
		total += v
	}
	if total == 0 {
		return "-"
	}
	pc := func(k string) int { return (m[k]*100 + total/2) / total }
	return fmt.Sprintf("%d/%d/%d", pc("watcher"), pc("probe"), pc("none"))
}

// markdown is the run's summary: the table, the verdicts, the host.
func markdown(r *Report) string {
	var b strings.Builder
	verdict := "PASS"
	if !r.Passed {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "\n## tmux-mcp scale: %s (profile %s, %s, %.0f s)\n\n", verdict, r.Profile, r.Started.UTC().Format("2006-01-02 15:04 MST"), r.Seconds)
	fmt.Fprintf(&b, "%d CPUs, load average %s at the start, %s at the end; %s; %s; %v calls/s per agent\n\n",
		r.Host.CPUs, r.Host.LoadStart, r.Host.LoadEnd, r.Host.Tmux, r.Host.TmuxMCP, r.Settings["hz_per_agent"])
	b.WriteString("| " + strings.Join(tableHeader, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---:|", len(tableHeader)) + "\n")
	for _, s := range r.Steps {
		b.WriteString("| " + strings.Join(tableRow(s), " | ") + " |\n")
	}
	b.WriteString("\n")
	for _, s := range r.Steps {
		for _, k := range sortedKeys(s.ErrorDetails) {
			fmt.Fprintf(&b, "- error in %s: %s: %s\n", s.label(), k, s.ErrorDetails[k])
		}
	}
	for _, v := range r.Verdicts {
		mark := "ok  "
		if !v.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "- %s %s: %s\n", mark, v.Name, v.Detail)
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
