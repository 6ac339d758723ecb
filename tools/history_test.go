package tools

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
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
	waitResult
	HistoryOverflowed bool `json:"history_overflowed"`
}

func catReady(string) bool { return true }

func TestWaitForTextAtHistoryLimit(t *testing.T) {
	e := newEnv(t, Readonly)
	ctx := context.Background()

	t.Run("output in steps, many times the limit", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.historyPane(200, "exec cat", catReady)
		ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"HIST_DONE"}, "timeout": 60})
		for i := range 60 {
			e.show(p, lines(fmt.Sprintf("step %d", i), 0, 10))
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
