package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// agent is one MCP client working on panes of its own: it polls its work
// pane (and, in an output step, a pane that prints continuously) with
// capture_pane, and every markerEvery ticks runs a command in its work
// pane that prints a marker, waits for it (run_command, or send_keys and
// wait_for_text, in turn), and checks that its next capture shows it.
type agent struct {
	id    int
	c     *mcpClient
	work  string // pane ID
	noise string // pane ID of a printing pane, or ""
	seq   int
	// lastTick is the highest counter an earlier capture of the noise
	// pane showed.
	lastTick int
}

// markerEvery is how many ticks apart an agent's marker commands are.
const markerEvery = 5

// run works until stop is closed (it finishes the call in flight) or ctx
// ends (it abandons it), one call per tick of period (a call that takes
// longer delays the next: each agent has one call in flight, as an agent
// does). offset staggers the agents' ticks within a period, and each
// agent's markers fall on a different tick of the markerEvery cycle
// (its id's): with one phase for all, every agent ran its marker
// command in the same period, a herd of 32 or 64 shells and tmux
// clients at once every markerEvery periods that no fleet of
// independent agents makes.
func (a *agent) run(ctx context.Context, stop <-chan struct{}, rec *recorder, period, offset time.Duration) {
	select {
	case <-ctx.Done():
		return
	case <-stop:
		return
	case <-time.After(offset):
	}
	t := time.NewTicker(period)
	defer t.Stop()
	for i := 1; ; i++ {
		phase := i + a.id
		switch {
		case phase%markerEvery == 0:
			a.marker(ctx, rec, phase/markerEvery%2 == 0)
		case a.noise != "" && i%2 == 1:
			a.captureNoise(ctx, rec)
		default:
			a.capture(ctx, rec, a.work)
		}
		select {
		case <-ctx.Done():
			return
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// capture polls pane; a failure is recorded and returns ok false.
func (a *agent) capture(ctx context.Context, rec *recorder, pane string) (result, bool) {
	start := time.Now()
	r := a.c.tool(ctx, "capture_pane", map[string]any{"pane_id": pane})
	if ctx.Err() != nil {
		return r, false
	}
	rec.addDetail(kindCapture, start, r.class, loadtest.FirstLine(r.text))
	if r.class == "" {
		rec.freshness(r.str("freshness"))
	}
	return r, r.class == ""
}

// captureNoise polls the printing pane and checks that its counter never
// goes back.
func (a *agent) captureNoise(ctx context.Context, rec *recorder) {
	r, ok := a.capture(ctx, rec, a.noise)
	if !ok {
		return
	}
	n, found := maxTick(r.text)
	if !found {
		return // the loop has not printed yet, or the screen was cleared
	}
	if n < a.lastTick {
		rec.addStale(fmt.Sprintf("agent %d: pane %s showed tick %d after tick %d", a.id, a.noise, n, a.lastTick))
		return
	}
	a.lastTick = n
}

// marker prints a fresh marker in the work pane, waits for it, then
// captures and checks. The typed line holds "ZZ", the output "YY", so
// that only the command's output matches.
func (a *agent) marker(ctx context.Context, rec *recorder, viaRun bool) {
	a.seq++
	typed, want := markerLine(a.id, a.seq)
	start := time.Now()
	var r result
	seen := false
	if viaRun {
		r = a.c.tool(ctx, "run_command", map[string]any{"pane_id": a.work, "command": typed, "timeout": 30})
		seen = r.class == "" && !r.boolean("timed_out") && containsText(r.text, want)
	} else {
		r = a.c.tool(ctx, "send_keys", map[string]any{"pane_id": a.work, "keys": typed, "literal": true})
		if r.class == "" {
			r = a.c.tool(ctx, "wait_for_text", map[string]any{"pane_id": a.work, "patterns": []string{want},
				"match_case": true, "timeout": 30})
			seen = r.class == "" && r.boolean("found")
		}
	}
	if ctx.Err() != nil {
		return
	}
	class, detail := r.class, loadtest.FirstLine(r.text)
	if class == "" && !seen {
		class, detail = "marker_not_seen", fmt.Sprintf("agent %d waited for %q: %.300s", a.id, want, r.text)
	}
	rec.addDetail(kindWait, start, class, detail)
	if class != "" {
		return
	}
	c, ok := a.capture(ctx, rec, a.work)
	if ok && !containsText(c.text, want) {
		rec.addStale(fmt.Sprintf("agent %d: capture of %s after %q printed lacks it", a.id, a.work, want))
	}
}

// markerLine is the command an agent types for marker seq, and the text
// its output holds (and the typed line does not).
func markerLine(agent, seq int) (typed, want string) {
	m := fmt.Sprintf("%d-%d.", agent, seq)
	return "echo ZZ" + m + " | tr Z Y", "YY" + m
}

func containsText(s, sub string) bool { return sub != "" && strings.Contains(s, sub) }

var tickRe = regexp.MustCompile(`tick (\d+)`)

// maxTick returns the highest "tick N" counter in a capture.
func maxTick(s string) (int, bool) {
	best, found := 0, false
	for _, m := range tickRe.FindAllStringSubmatch(s, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			best, found = max(best, n), true
		}
	}
	return best, found
}
