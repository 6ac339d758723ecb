package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

func nan() float64 { return math.NaN() }

// printSummary writes the verdicts and the README table to w.
func printSummary(w io.Writer, r *Report, dir string) {
	fmt.Fprintf(w, "\nsoak (%s profile, %.0f s): %s\n\n", r.Profile, r.Seconds, passWord(r.Passed))
	fmt.Fprint(w, SummaryMarkdown(r))
	fmt.Fprintln(w)
	for _, v := range r.Verdicts {
		mark := "ok  "
		if !v.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %s: %s\n", mark, v.Name, v.Detail)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "\nreport: %s/report.html (also report.json, series.csv)\n", dir)
}

func passWord(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// SummaryMarkdown is the README's summary table: the incident workload at
// each rate (raw against supervised), the server's RSS and fds over the
// polling phases, and each fault.
func SummaryMarkdown(r *Report) string {
	var b strings.Builder
	b.WriteString("| incident workload (silent pane) | calls | capture-pane reaching tmux | other tmux commands | barrier round trips | server CPU ms | per 1,000 calls | above idle, per 1,000 calls | errors |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	per1k := func(v float64, calls int) float64 { return v * 1000 / float64(max(calls, 1)) }
	for _, row := range r.Incident {
		fmt.Fprintf(&b, "| raw `capture-pane`, %g Hz | %d | %d | %d | - | %.1f | %.1f | %.1f | %d |\n",
			row.Hz, row.RawCalls, row.RawCaptures, row.RawCommands-row.RawCaptures, row.RawCPUms, row.RawCPUmsPer1k, per1k(row.RawCPUmsAboveIdle, row.RawCalls), row.RawErrors)
		fmt.Fprintf(&b, "| supervised (tmux-mcp), %g Hz | %d | %d | %d | %d | %.1f | %.1f | %.1f | %d |\n",
			row.Hz, row.SupCalls, row.SupCaptures, row.SupCommands-min(row.SupCaptures, row.SupCommands), row.SupBarriers, row.SupCPUms, row.SupCPUmsPer1k, per1k(row.SupCPUmsAboveIdle, row.SupCalls), row.SupErrors)
	}
	var polling []Phase
	for _, p := range r.Phases {
		if p.Workload != "mixed" {
			polling = append(polling, p)
		}
	}
	if len(polling) > 0 {
		first, last := polling[0], polling[len(polling)-1]
		idle := 0.0
		if len(r.Incident) > 0 {
			idle = r.Incident[0].IdleCPUmsPerSecond
		}
		fmt.Fprintf(&b, "\nServer over the polling phases (%.0f s): RSS %s -> %s, fds %d -> %d; idle server CPU %.2f ms/s.\n",
			last.End-first.Start, mib(first.RSSStart), mib(last.RSSEnd), first.FDsStart, last.FDsEnd, idle)
	}
	if len(r.Faults) > 0 {
		b.WriteString("\n| fault | server lost | detected in | cause | recovered in | objects lost | note |\n|---|---|---:|---|---:|---:|---|\n")
		for _, f := range append(append([]Fault(nil), r.Faults...), r.Unplanned...) {
			if f.Skipped != "" {
				fmt.Fprintf(&b, "| %s | skipped | - | - | - | - | %s |\n", f.Kind, f.Skipped)
				continue
			}
			lost := lostText(f)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", f.Kind, yesNo(f.Died), msOrDash(f.DetectedMs),
				orDash(f.Cause), msOrDash(f.RecoveredMs), lost, strings.ReplaceAll(orDash(f.Note), "|", "/"))
		}
	}
	return b.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func msOrDash(ms float64) string {
	if ms < 0 {
		return "-"
	}
	if ms >= 10000 {
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// lostText is a fault's "objects lost" cell: missing of those checked.
func lostText(f Fault) string {
	switch {
	case f.Journaled > 0:
		return fmt.Sprintf("%d of %d live + %d journaled", len(f.Lost), f.ObjectsBefore, f.Journaled)
	case f.ObjectsBefore > 0:
		return fmt.Sprintf("%d of %d", len(f.Lost), f.ObjectsBefore)
	}
	return "-"
}
