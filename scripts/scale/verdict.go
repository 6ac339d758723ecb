package main

import (
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// Bounds are what every step is held to.
type Bounds struct {
	// CaptureP99Ms bounds capture_pane's p99 latency in every step.
	CaptureP99Ms float64 `json:"capture_p99_ms"`
}

// BoundsFor returns the bounds for agents that each call hz times a
// second; BoundsDoc says why.
func BoundsFor(hz float64) Bounds { return Bounds{CaptureP99Ms: 1000 / hz} }

// BoundsDoc explains each verdict; the report prints it.
var BoundsDoc = []string{
	"no errors: every call of every step succeeds (a tool error result, a transport error and a wait that never saw its marker all count). A rate_limited error means the step asked more of one pane or one server than tmux-mcp lets through (--read-rate, --server-rate), and fails the run like any other.",
	"no stale capture: after an agent's command has printed its marker (run_command returned, or wait_for_text matched it), the agent's next capture_pane of that pane must contain the marker, since it was printed before the capture began; and a capture of a printing pane never shows a lower counter than an earlier capture of it showed.",
	"capture latency: capture_pane's p99 in every step is at most one polling period of an agent (1/hz: 500 ms at the default 2 calls a second). Below it, tmux-mcp serves the fleet at the rate the fleet asks; above it, calls queue and an agent can no longer poll at its rate: the step is past saturation. A cached capture costs under a millisecond on an idle machine, so the bound does not hinge on a timing margin; what breaks it is a queue (a rate limiter's wait, one connection serialising every capture, a starved CPU).",
	"every step made captures and marker waits (so the stale check ran); the tmux server never died (server_health restarts stays 0 over the whole run, set-up included).",
	"cleanup: after the run no process remains whose command line or environment names the run's private directory.",
}

// Judge applies the bounds to the steps, the server's restarts over the
// whole run (death: why it last died) and the leaked processes. It is
// pure.
func Judge(steps []Step, restarts int, death string, leaked []string, b Bounds) []loadtest.Verdict {
	var out []loadtest.Verdict
	add := func(name string, pass bool, format string, a ...any) {
		out = append(out, loadtest.Verdict{Name: name, Pass: pass, Detail: fmt.Sprintf(format, a...)})
	}
	var errs, stale, worst []string
	var noCalls, restarted []string
	worstP99, total := 0.0, 0
	for _, s := range steps {
		name := s.label()
		total += s.Calls
		if n := s.errorCount(); n > 0 {
			errs = append(errs, fmt.Sprintf("%s: %d (%s)", name, n, classes(s.Errors)))
		}
		if len(s.Stale) > 0 {
			stale = append(stale, fmt.Sprintf("%s: %d (%s)", name, len(s.Stale), s.Stale[0]))
		}
		if s.Captures.P99 > b.CaptureP99Ms {
			worst = append(worst, fmt.Sprintf("%s: %.1f ms", name, s.Captures.P99))
		}
		worstP99 = max(worstP99, s.Captures.P99)
		if s.Calls == 0 || s.Captures.N == 0 || s.Waits.N == 0 {
			noCalls = append(noCalls, name)
		}
		if s.Restarts > 0 {
			restarted = append(restarted, fmt.Sprintf("%s: %d", name, s.Restarts))
		}
	}
	add("no errors", len(errs) == 0 && len(steps) > 0, "%s", orText(errs, fmt.Sprintf("%d calls in %d steps, none failed", total, len(steps))))
	add("no stale capture", len(stale) == 0, "%s", orText(stale, "every capture after a marker showed it; no counter went back"))
	add("capture p99", len(worst) == 0, "%s", orText(worst, fmt.Sprintf("worst step p99 %.1f ms <= %.0f ms", worstP99, b.CaptureP99Ms)))
	add("every step ran", len(noCalls) == 0 && len(restarted) == 0 && len(steps) > 0, "%s",
		orText(append(prefixed("no calls: ", noCalls), prefixed("restarts: ", restarted)...), fmt.Sprintf("%d steps", len(steps))))
	add("server stayed up", restarts == 0, "%s", orText(nonEmpty(fmt.Sprintf("%d restarts, last death: %s", restarts, death), restarts > 0), "no restart"))
	add("cleanup", len(leaked) == 0, "%s", orText(leaked, "no process left"))
	return out
}

// label names a step in verdicts and tables.
func (s StepSpec) label() string {
	out := "silent"
	if s.Output {
		out = "output"
	}
	return fmt.Sprintf("%d sessions x%d, %d agents, %s", s.Sessions, s.PanesPerSession, s.Agents, out)
}

func classes(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func orText(items []string, none string) string {
	if len(items) == 0 {
		return none
	}
	const most = 6
	if len(items) > most {
		items = append(items[:most:most], fmt.Sprintf("and %d more", len(items)-most))
	}
	return strings.Join(items, "; ")
}

func prefixed(p string, items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = p + s
	}
	return out
}

func nonEmpty(s string, keep bool) []string {
	if !keep {
		return nil
	}
	return []string{s}
}
