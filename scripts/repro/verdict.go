package main

import (
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// Bounds are the limits the verdicts hold a run to. They are generous on
// purpose: the machine is shared and has two cores, so a verdict must not
// hinge on a timing margin that load can eat. Each bound says why it is
// what it is in BoundsDoc.
type Bounds struct {
	DetectMs         float64 `json:"detect_ms"`
	HungDetectMs     float64 `json:"hung_detect_ms"`
	RecoverMs        float64 `json:"recover_ms"`
	RSSGrowthBytes   uint64  `json:"rss_growth_bytes"`
	RSSGrowthPercent float64 `json:"rss_growth_percent"`
	FDGrowth         int     `json:"fd_growth"`
}

// DefaultBounds returns the bounds for a supervisor whose hung bound is
// hungAfterMs.
func DefaultBounds(hungAfterMs float64) Bounds {
	return Bounds{
		DetectMs:         15000,
		HungDetectMs:     hungAfterMs + 15000,
		RecoverMs:        60000,
		RSSGrowthBytes:   8 << 20,
		RSSGrowthPercent: 10,
		FDGrowth:         4,
	}
}

// BoundsDoc explains each bound; the report prints it beside the verdicts.
var BoundsDoc = []string{
	"detect: a death must be reported within 15 s of the fault. The supervisor learns of an owned server's exit from wait() at once and probes every second otherwise; 15 s is slack for a loaded 2-core machine, not a target.",
	"hung detect: a stopped server is only declared hung after the supervisor's hung bound (TMUX_MCP_HUNG_AFTER), so its bound is that plus 15 s.",
	"recover: a recoverable death must be recovered (server answering, sessions restored) within 60 s; the restart policy's first attempt starts at once and restore is a few tmux commands per object.",
	"server RSS: over the incident phases (one server, no panes created) RSS may grow by at most 8 MiB + 10 % of its start: tmux allocates in malloc arenas, not per call, and a per-call leak (3.3 kB per control-mode capture on tmux < 3.6) exceeds this at the long run's call counts.",
	"server fds: over the incident phases fds may grow by at most 4, plus 3 per control-mode watcher connection tmux-mcp opened meanwhile (server_health watchers): a tmux client holds 3 server fds (socket, stdin, stdout) only while it is connected, so one client in flight at the last sample is allowed, nothing more.",
	"restore: when tmux-mcp announces a restore it must say it succeeded; a failed step (reported in journal_events) fails the run even if every object the harness keeps came back.",
	"nothing lost: every session, window and pane the run keeps is present after recovery (the live listing before the fault against the live listing after, within 20 s), and every object of the journal snapshot a restore rebuilt from is in the snapshot the restore took when it finished (both read with tmux-mcp journal show, so the agents' later changes do not count).",
	"leaks: after cleanup no process may remain whose command line or environment names the run's private directory (servers, clients, pane programs).",
}

// Judge applies the bounds to the run's phases, faults and leaks. It is
// pure.
func Judge(phases []Phase, faults []Fault, leaked []string, b Bounds) []loadtest.Verdict {
	var out []loadtest.Verdict
	add := func(name string, pass bool, format string, a ...any) {
		out = append(out, loadtest.Verdict{Name: name, Pass: pass, Detail: fmt.Sprintf(format, a...)})
	}
	for _, f := range faults {
		if f.Skipped != "" {
			continue
		}
		if f.Died {
			bound := b.DetectMs
			if f.Kind == FaultHang {
				bound = b.HungDetectMs
			}
			switch {
			case f.DetectedMs < 0:
				add("detected: "+f.Kind, false, "the server died and tmux-mcp never reported it")
			case f.DetectedMs > bound:
				add("detected: "+f.Kind, false, "reported after %.0f ms, bound %.0f ms", f.DetectedMs, bound)
			default:
				add("detected: "+f.Kind, true, "reported after %.0f ms as %s (bound %.0f ms)", f.DetectedMs, orDash(f.Cause), bound)
			}
			if f.RestoreReported {
				add("restore succeeded: "+f.Kind, f.Restored, "%s", orDash(f.Note))
			}
			if f.Recoverable {
				switch {
				case f.RecoveredMs < 0:
					add("recovered: "+f.Kind, false, "not recovered")
				case f.RecoveredMs > b.RecoverMs:
					add("recovered: "+f.Kind, false, "recovered after %.0f ms, bound %.0f ms", f.RecoveredMs, b.RecoverMs)
				default:
					add("recovered: "+f.Kind, true, "recovered after %.0f ms (bound %.0f ms)", f.RecoveredMs, b.RecoverMs)
				}
			}
		}
		if f.Check != "" {
			add(f.Kind+": "+f.Check, f.CheckPass, "%s", orDash(f.Note))
		}
		if f.ObjectsBefore > 0 || f.Journaled > 0 {
			what := fmt.Sprintf("%d objects the run keeps", f.ObjectsBefore)
			if f.Journaled > 0 {
				what += fmt.Sprintf(", %d in the snapshot the restore used", f.Journaled)
			}
			if len(f.Lost) > 0 {
				add("nothing lost: "+f.Kind, false, "%d missing after recovery (of %s): %s", len(f.Lost), what, strings.Join(f.Lost, ", "))
			} else {
				add("nothing lost: "+f.Kind, true, "none missing after recovery (of %s)", what)
			}
		}
	}
	var incident []Phase
	for _, p := range phases {
		if p.Workload != "mixed" {
			incident = append(incident, p)
		}
	}
	if len(incident) > 0 {
		first, last := incident[0], incident[len(incident)-1]
		died := false
		for _, p := range incident {
			died = died || p.Died
		}
		add("tmux survived the polling phases", !died, "server PID %d at the start, %d at the end", first.ServerPID, last.ServerPID)
		if !died && first.RSSStart > 0 {
			limit := first.RSSStart + b.RSSGrowthBytes + uint64(float64(first.RSSStart)*b.RSSGrowthPercent/100)
			add("server RSS bounded", last.RSSEnd <= limit, "%s -> %s over the polling phases (limit %s)",
				mib(first.RSSStart), mib(last.RSSEnd), mib(limit))
		}
		if !died && first.FDsStart > 0 {
			limit := first.FDsStart + b.FDGrowth + 3*max(last.WatchersEnd-first.WatchersStart, 0)
			add("server fds bounded", last.FDsEnd <= limit, "%d -> %d over the polling phases (limit %d: %d watcher connections opened)",
				first.FDsStart, last.FDsEnd, limit, max(last.WatchersEnd-first.WatchersStart, 0))
		}
	}
	if len(leaked) > 0 {
		add("no leaked processes", false, "%d left: %s", len(leaked), strings.Join(leaked, "; "))
	} else {
		add("no leaked processes", true, "none left after cleanup")
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
