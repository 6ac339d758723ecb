package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// Tests of the tools anchored to a pane's history (wait_for_text,
// run_command, capture_since) on panes at their history-limit, where tmux
// drops the oldest tenth of the history at once and row numbers shift.

// historyPane starts a window running cmd whose pane keeps limit lines of
// history, waits until ready accepts its screen, and fills its history to
// the limit exactly: the next line it prints makes tmux drop the oldest
// tenth.
func (e *env) historyPane(limit int, cmd string, ready func(string) bool) string {
	e.t.Helper()
	e.tmux("set-option", "-g", "history-limit", strconv.Itoa(limit))
	p := e.window(cmd)
	e.waitScreen(p, "the program", ready)
	e.fillHistory(p, limit)
	return p
}

// fillHistory prints lines in pane until its history holds limit lines.
func (e *env) fillHistory(pane string, limit int) {
	e.t.Helper()
	n := 0
	for h := e.historySize(pane); h < limit; h = e.historySize(pane) {
		var b strings.Builder
		for range limit - h {
			n++
			fmt.Fprintf(&b, "\r\nfill %d", n)
		}
		e.show(pane, b.String())
	}
}

// show writes s (lines that end with the last one) to the pane's
// terminal and waits until tmux shows its last line.
func (e *env) show(pane, s string) {
	e.t.Helper()
	e.ttyWrite(pane, s)
	last := s[strings.LastIndex(s, "\n")+1:]
	e.waitScreen(pane, strconv.Quote(last), func(scr string) bool { return strings.HasSuffix(scr, last) })
}

func (e *env) historySize(pane string) int {
	e.t.Helper()
	n, err := strconv.Atoi(e.tmux("display-message", "-p", "-t", pane, "#{history_size}"))
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// lines returns "\r\n<prefix> i" for i in [from, to).
func lines(prefix string, from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, "\r\n%s %d", prefix, i)
	}
	return b.String()
}

type histWait struct {
	drive.WaitResult
	HistoryOverflowed bool `json:"history_overflowed"`
}

func catReady(string) bool { return true }

func TestWaitForTextAtHistoryLimit(t *testing.T) {
	e := newEnv(t, Readonly)
	ctx := context.Background()

	t.Run("output in steps, many times the limit", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.historyPane(100, "exec cat", catReady)
		captures := countCommands(t, e.sup, "capture-pane")
		ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"HIST_DONE"}, "timeout": 60})
		for i := range 30 {
			// Ten lines at a time, each time read by the wait before the
			// next: nothing is lost, though tmux frees the lines the wait
			// began at, and those it read after them.
			n := captures.count()
			e.show(p, lines(fmt.Sprintf("step %d", i), 0, 10))
			tmuxtest.WaitFor(t, 10*time.Second, "the wait's next read", func() bool { return captures.count() > n })
		}
		e.ttyWrite(p, "\r\nHIST_DONE\r\n")
		var r histWait
		if res := e.result(ch, &r); res.IsError {
			t.Fatalf("wait_for_text: %s", text(res))
		}
		if !r.Found || !slices.Equal(r.MatchedLines, []string{"HIST_DONE"}) || r.HistoryOverflowed {
			t.Errorf("wait_for_text = %+v, want HIST_DONE matched, history not overflowed", r)
		}
	})
	t.Run("old text above the baseline", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.historyPane(100, "exec cat", catReady)
		e.show(p, lines("HIST_OLD", 0, 30))
		e.fillHistory(p, 100)
		ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"HIST_OLD"}, "timeout": 2})
		for i := range 5 {
			e.show(p, lines(fmt.Sprintf("new %d", i), 0, 7))
		}
		var r histWait
		if res := e.result(ch, &r); res.IsError {
			t.Fatalf("wait_for_text: %s", text(res))
		}
		if r.Found || r.Outcome != "timeout" || !r.SawNewOutput || r.HistoryOverflowed {
			t.Errorf("wait_for_text = %+v, want a timeout: HIST_OLD was printed before the call", r)
		}
	})
	t.Run("a burst beyond the limit", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.historyPane(100, "exec cat", catReady)
		ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"HIST_DONE"}, "timeout": 10})
		e.ttyWrite(p, lines("burst", 0, 400)+"\r\nHIST_DONE\r\n")
		var r histWait
		if res := e.result(ch, &r); res.IsError {
			t.Fatalf("wait_for_text: %s", text(res))
		}
		if !r.Found || !slices.Equal(r.MatchedLines, []string{"HIST_DONE"}) || !r.HistoryOverflowed {
			t.Errorf("wait_for_text = %+v, want HIST_DONE matched and history_overflowed", r)
		}
	})
}

type histRun struct {
	drive.RunResult
	HistoryOverflowed bool `json:"history_overflowed"`
}

// TestRunCommandAtHistoryLimit runs 200 commands of different lengths in a
// pane at its history-limit: each reports its exit status and the tail of
// its output, and says when the limit dropped the output's start.
func TestRunCommandAtHistoryLimit(t *testing.T) {
	e := newEnv(t, Mutating)
	const limit = 100
	p := e.historyPane(limit, "env PS1='$ ' HISTFILE=/dev/null bash --noprofile --norc",
		func(s string) bool { return strings.HasSuffix(s, "$") })
	sizes := []int{1, 3, 9, 10, 11, 25, 50, 60, 95, 101, 150, 400}
	for i := range 200 {
		n := sizes[i%len(sizes)]
		var r histRun
		res := e.call("run_command", map[string]any{"pane_id": p, "command": fmt.Sprintf("seq 1 %d", n)})
		if res.IsError {
			t.Fatalf("call %d: run_command(seq 1 %d) failed: %s", i, n, text(res))
		}
		if err := json.Unmarshal(structuredJSON(t, res), &r); err != nil {
			t.Fatal(err)
		}
		first, _ := strconv.Atoi(firstOr(r.Output, "0"))
		complete := first == 1
		ok := deref(r.ExitStatus) == 0 && !r.TimedOut && len(r.Output) > 0 && r.Output[len(r.Output)-1] == strconv.Itoa(n) &&
			first >= 1 && len(r.Output) == n-first+1 && complete == !r.HistoryOverflowed && complete == !r.Truncated
		for j, l := range r.Output {
			ok = ok && l == strconv.Itoa(first+j)
		}
		if n <= 50 {
			ok = ok && complete
		}
		if !ok {
			t.Fatalf("call %d: run_command(seq 1 %d) = exit %v, %d lines %q..%q, truncated %v, history_overflowed %v; "+
				"want exit 0 and the lines up to %d, all of them unless history overflowed",
				i, n, deref(r.ExitStatus), len(r.Output), firstOr(r.Output, ""), lastOr(r.Output), r.Truncated, r.HistoryOverflowed, n)
		}
	}
}

func firstOr(s []string, def string) string {
	if len(s) == 0 {
		return def
	}
	return s[0]
}

func lastOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

type histSince struct {
	sinceResult
	HistoryOverflowed bool `json:"history_overflowed"`
}

func TestCaptureSinceAtHistoryLimit(t *testing.T) {
	e := newEnv(t, Readonly)
	p := e.historyPane(100, "exec cat", catReady)
	var r histSince
	e.ok("capture_since", map[string]any{"pane_id": p}, &r)
	for i := range 30 {
		k := 1 + i*7%60
		e.show(p, lines(fmt.Sprintf("since %d", i), 0, k))
		cursor := r.Cursor
		e.ok("capture_since", map[string]any{"cursor": cursor}, &r)
		want := strings.Split(strings.TrimPrefix(lines(fmt.Sprintf("since %d", i), 0, k), "\r\n"), "\r\n")
		if !slices.Equal(r.Lines, want) || r.LinesMissed || r.HistoryOverflowed {
			t.Fatalf("step %d: capture_since = %q, lines_missed %v, history_overflowed %v; want the %d new lines",
				i, r.Lines, r.LinesMissed, r.HistoryOverflowed, k)
		}
	}
	e.show(p, lines("burst", 0, 400))
	e.ok("capture_since", map[string]any{"cursor": r.Cursor}, &r)
	if !r.LinesMissed || !r.HistoryOverflowed || lastOr(r.Lines) != "burst 399" || slices.Contains(r.Lines, "burst 0") {
		t.Errorf("capture_since after 400 lines = %d lines ending %q, lines_missed %v, history_overflowed %v; "+
			"want the lines still held, lines_missed and history_overflowed", len(r.Lines), lastOr(r.Lines), r.LinesMissed, r.HistoryOverflowed)
	}
	e.show(p, lines("after", 0, 3))
	e.ok("capture_since", map[string]any{"cursor": r.Cursor}, &r)
	if !slices.Equal(r.Lines, []string{"after 0", "after 1", "after 2"}) || r.LinesMissed || r.HistoryOverflowed {
		t.Errorf("capture_since after the burst = %q, lines_missed %v; want the 3 new lines", r.Lines, r.LinesMissed)
	}
}
