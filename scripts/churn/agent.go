package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// recorder keeps one actor's calls: per operation, how many, how long,
// and every error by class with a few examples.
type recorder struct {
	name string
	t0   time.Time

	mu  sync.Mutex
	ops map[string]*opRec
}

type opRec struct {
	ms       []float64
	errors   map[string]int
	examples []string
}

func newRecorder(name string, t0 time.Time) *recorder {
	return &recorder{name: name, t0: t0, ops: map[string]*opRec{}}
}

// maxExamples is how many error texts the report keeps per operation.
const maxExamples = 5

// add records one call of op that started at start; class is "" on
// success, msg the error's text.
func (r *recorder) add(op string, start time.Time, class, msg string) {
	ms := float64(time.Since(start).Microseconds()) / 1000
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.ops[op]
	if o == nil {
		o = &opRec{errors: map[string]int{}}
		r.ops[op] = o
	}
	o.ms = append(o.ms, ms)
	if class != "" {
		o.errors[class]++
		if len(o.examples) < maxExamples {
			o.examples = append(o.examples, fmt.Sprintf("%.1fs %s: %s", start.Sub(r.t0).Seconds(), class, loadtest.FirstLine(msg)))
		}
	}
}

// stats sums the recorder up.
func (r *recorder) stats() ActorStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := ActorStats{Name: r.name, Ops: map[string]OpStats{}}
	names := make([]string, 0, len(r.ops))
	for n := range r.ops {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		o := r.ops[n]
		s := OpStats{Calls: len(o.ms), Latency: loadtest.Summarise(o.ms), ErrorClasses: map[string]int{}, Examples: o.examples}
		for c, k := range o.errors {
			s.Errors += k
			s.ErrorClasses[c] = k
		}
		a.Calls += s.Calls
		a.Errors += s.Errors
		a.Ops[n] = s
	}
	return a
}

// agent is one busy agent: one MCP client of its own tmux-mcp process,
// working through rounds of the tools agents use, paced as an agent is
// (a pause between calls while it thinks).
type agent struct {
	id   int
	m    *mcpProc
	rng  *rand.Rand
	rec  *recorder
	pace pacing
}

// run does rounds until ctx ends.
func (a *agent) run(ctx context.Context) {
	for k := 1; ctx.Err() == nil; k++ {
		if !a.round(ctx, k) {
			// A round that failed early (a server restarting, say):
			// back off a little rather than spin.
			sleepCtx(ctx, 500*time.Millisecond) //nolint:errcheck // the loop checks ctx
		}
	}
}

// call calls a tool, records it and pauses as the agent thinks. It
// returns the result and whether the call succeeded.
func (a *agent) call(ctx context.Context, name string, args map[string]any) (loadtest.ToolResult, bool) {
	// Once the churn is over only the round's clean-up runs.
	if ctx.Err() != nil && !strings.HasPrefix(name, "kill_") {
		return loadtest.ToolResult{}, false
	}
	start := time.Now()
	// A call in flight at the end of the churn (a wait, say) is
	// abandoned then, and not recorded; the round's kills run to their
	// end.
	parent, cleanup := ctx, strings.HasPrefix(name, "kill_")
	if cleanup {
		parent = context.WithoutCancel(ctx)
	}
	cctx, cancel := context.WithTimeout(parent, 30*time.Second)
	res, err := a.m.tool(cctx, name, args)
	cancel()
	if !cleanup && ctx.Err() != nil {
		return res, false
	}
	class, msg := res.Class, res.Text
	if err != nil {
		msg = err.Error()
		if class == "" {
			class = "protocol"
		}
	}
	a.rec.add(name, start, class, msg)
	sleepCtx(ctx, between(a.rng, a.pace.agentPause)) //nolint:errcheck // the caller checks ctx
	return res, class == ""
}

// field decodes one string field of a result.
func field(r loadtest.ToolResult, name string) string {
	var m map[string]any
	if json.Unmarshal(r.Raw, &m) != nil {
		return ""
	}
	s, _ := m[name].(string)
	return s
}

// round is one piece of an agent's work: a session of its own with a
// second window split in two, commands run and waited for, panes
// captured, names changed, a pane selected and resized, and everything
// killed again, pane by pane. It reports whether the session was made.
func (a *agent) round(ctx context.Context, k int) bool {
	name := fmt.Sprintf("ag%d-%d", a.id, k)
	res, ok := a.call(ctx, "create_session", map[string]any{"session_name": name, "window_name": "main", "x": 120, "y": 40})
	sid := field(res, "session_id")
	if !ok || sid == "" {
		return false
	}
	killed := false
	defer func() {
		if !killed {
			a.call(ctx, "kill_session", map[string]any{"session_id": sid})
		}
	}()
	if ctx.Err() != nil {
		return true
	}
	res, ok = a.call(ctx, "create_window", map[string]any{"session_id": sid, "window_name": "work"})
	wid, p1 := field(res, "window_id"), field(res, "active_pane_id")
	if !ok || wid == "" || p1 == "" || ctx.Err() != nil {
		return true
	}
	res, ok = a.call(ctx, "split_window", map[string]any{"pane_id": p1, "direction": "right"})
	p2 := field(res, "pane_id")
	if !ok || p2 == "" || ctx.Err() != nil {
		return true
	}
	a.call(ctx, "run_command", map[string]any{"pane_id": p2, "command": fmt.Sprintf("echo rc-%d-%d", a.id, k), "timeout": 10})
	// The typed line holds $((...)), the output its value: the wait
	// matches the output, never the echo of what was typed.
	a.call(ctx, "send_keys", map[string]any{"pane_id": p1, "keys": fmt.Sprintf("echo m%d-$((%d+1))", a.id, k), "enter": true})
	a.call(ctx, "wait_for_text", map[string]any{"pane_id": p1, "patterns": []string{fmt.Sprintf("m%d-%d", a.id, k+1)}, "timeout": 10})
	a.call(ctx, "capture_pane", map[string]any{"pane_id": p1})
	if ctx.Err() != nil {
		return true
	}
	a.call(ctx, "rename_session", map[string]any{"session_id": sid, "new_name": name + "-r"})
	a.call(ctx, "rename_window", map[string]any{"window_id": wid, "new_name": "work-r"})
	a.call(ctx, "select_pane", map[string]any{"pane_id": p2})
	a.call(ctx, "resize_pane", map[string]any{"pane_id": p2, "width": 30 + a.rng.IntN(20)})
	a.call(ctx, "select_pane", map[string]any{"pane_id": p1})
	a.call(ctx, "capture_pane", map[string]any{"pane_id": p2})
	a.call(ctx, "kill_pane", map[string]any{"pane_id": p2})
	a.call(ctx, "kill_window", map[string]any{"window_id": wid})
	_, killed = a.call(ctx, "kill_session", map[string]any{"session_id": sid})
	return true
}

// errorSummary is "class ×n, ..." for a map of counts, largest first.
func errorSummary(m map[string]int) string {
	type kv struct {
		k string
		v int
	}
	var l []kv
	for k, v := range m {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v || l[i].v == l[j].v && l[i].k < l[j].k })
	var parts []string
	for _, e := range l {
		parts = append(parts, fmt.Sprintf("%s ×%d", e.k, e.v))
	}
	return strings.Join(parts, ", ")
}

// newRand is the random source of actor i of a run with seed.
func newRand(seed, i uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, i)) }

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
