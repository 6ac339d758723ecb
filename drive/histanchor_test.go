package drive

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// fakeGrid is a pane's grid as tmux keeps it: history rows, then the
// screen; each line printed at the bottom scrolls one row into the
// history, and a full history first frees its oldest tenth
// (grid_collect_history).
type fakeGrid struct {
	limit, height int
	rows          []string
}

func newFakeGrid(limit, height int) *fakeGrid {
	return &fakeGrid{limit: limit, height: height, rows: make([]string, height)}
}

func (g *fakeGrid) hsize() int { return len(g.rows) - g.height }

// print prints lines, each one scrolling the screen by a row.
func (g *fakeGrid) print(lines ...string) {
	for _, l := range lines {
		if g.hsize() >= g.limit {
			g.rows = g.rows[historyDrop(g.limit):]
		}
		g.rows = append(g.rows, l)
	}
}

func (g *fakeGrid) printf(n int, format string, a ...any) {
	for i := range n {
		g.print(fmt.Sprintf(format, append(a, i)...))
	}
}

func (g *fakeGrid) pane() tmux.Pane {
	return tmux.Pane{HistorySize: g.hsize(), HistoryLimit: g.limit, Width: 80, Height: g.height, CursorY: g.height - 1}
}

// capture returns the rows from row top (capture-pane's numbering) down.
func (g *fakeGrid) capture(top int) []string {
	return append([]string{}, g.rows[max(g.hsize()+top, 0):]...)
}

func TestScreenAnchorLocate(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		before func(g *fakeGrid) // history before the anchor is taken
		after  func(g *fakeGrid) // output after
		// want: the anchor's row, or found false; settled when no line
		// can have been freed.
		want    int
		found   bool
		settled bool
	}{
		{"below the limit", 100, func(g *fakeGrid) { g.printf(40, "old %d") }, func(g *fakeGrid) { g.printf(5, "new %d") }, -5, true, true},
		{"near the limit", 100, func(g *fakeGrid) { g.printf(50, "old %d") }, func(g *fakeGrid) { g.printf(45, "new %d") }, -45, true, false},
		{"one drop", 100, func(g *fakeGrid) { g.printf(150, "old %d") }, func(g *fakeGrid) { g.printf(5, "new %d") }, -5, true, false},
		{"many drops", 100, func(g *fakeGrid) { g.printf(150, "old %d") }, func(g *fakeGrid) { g.printf(73, "new %d") }, -73, true, false},
		{"freed", 100, func(g *fakeGrid) { g.printf(150, "old %d") }, func(g *fakeGrid) { g.printf(140, "new %d") }, 0, false, false},
		{"new rows all alike", 100, func(g *fakeGrid) { g.printf(150, "old %d") }, func(g *fakeGrid) {
			for range 37 {
				g.print("same")
			}
		}, -37, true, false},
		{"the anchor's rows printed again, off the rows it can be at", 100, func(g *fakeGrid) {
			g.printf(150, "old %d")
		}, func(g *fakeGrid) {
			g.print(g.rows[g.hsize()-AnchorRows : g.hsize()]...)
			g.printf(14, "new %d")
		}, -22, true, false},
		{"a short history: rows on the screen too", 100, func(g *fakeGrid) { g.printf(3, "old %d") }, func(g *fakeGrid) {
			g.printf(90, "new %d")
		}, -90, true, false},
		{"no history at all", 100, func(*fakeGrid) {}, func(g *fakeGrid) { g.printf(95, "new %d") }, -95, true, false},
		{"history-limit 0", 0, func(g *fakeGrid) { g.printf(10, "old %d") }, func(g *fakeGrid) { g.printf(5, "new %d") }, 0, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGrid(tt.limit, 10)
			tt.before(g)
			pn := g.pane()
			a := takeAnchor(pn, pn, g.capture(-AnchorRows), pn.CursorY)
			tt.after(g)
			now := g.pane()
			row, settled := a.settled(now)
			if settled != tt.settled || settled && row != tt.want {
				t.Errorf("settled = %d, %v; want %d, %v", row, settled, tt.want, tt.settled)
			}
			if settled {
				return
			}
			got, found := a.locate(now, now, g.capture(-now.HistorySize))
			if found != tt.found || found && got != tt.want {
				t.Errorf("locate = %d, %v; want %d, %v", got, found, tt.want, tt.found)
			}
		})
	}
}

// TestScreenAnchorSlack: lines that scroll while rows are captured
// (between the two reads of the pane's state) widen the rows the anchor
// can be at, also when tmux frees lines meanwhile and the history size
// after is no smaller than before (94, 98 at the capture, 95 after).
func TestScreenAnchorSlack(t *testing.T) {
	tests := []struct{ old, during, more int }{
		{50, 3, 2}, {104, 4, 7}, {150, 3, 2}, {155, 0, 10}, {155, 10, 0}, {91, 0, 0},
	}
	for _, tt := range tests {
		g := newFakeGrid(100, 10)
		g.printf(tt.old, "old %d")
		before := g.pane()
		g.printf(tt.during, "during %d")
		rows := g.capture(-AnchorRows)
		g.printf(tt.more, "during more %d")
		a := takeAnchor(before, g.pane(), rows, before.CursorY)
		anchor := rows[len(rows)-g.height]
		for step, n := range []int{20, 3, 5} {
			g.printf(n, "new %d")
			before = g.pane()
			during, more := tt.during, tt.more
			if step == 0 {
				during, more = 0, 0 // a still pane: the slack is all the anchor's
			}
			g.printf(during, "later %d")
			rows = g.capture(-g.hsize())
			g.printf(more, "later more %d")
			got, found := a.locate(before, g.pane(), rows)
			if !found || rows[len(rows)-g.height+got] != anchor {
				t.Fatalf("%+v, step %d: locate = %d, %v; want the row of %q", tt, step, got, found, anchor)
			}
			// Found again, it moves to the top of that screen.
			a, anchor = a.moved(got, rows, g.height-1), rows[len(rows)-g.height]
		}
	}
}

func TestMayHaveDropped(t *testing.T) {
	g := newFakeGrid(100, 10)
	g.printf(30, "old %d")
	a := paneAnchor(g.pane())
	g.printf(30, "new %d")
	if a.mayHaveDropped(g.pane()) {
		t.Errorf("mayHaveDropped at history %d of 100 = true", g.hsize())
	}
	g.printf(100, "more %d")
	if !a.mayHaveDropped(g.pane()) {
		t.Errorf("mayHaveDropped at history %d of 100 = false", g.hsize())
	}
}

func TestSplitLines(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		width int
		rows  []string
		from1 []string // lines from row 1
	}{
		{"short lines", []string{"a", "bc   ", ""}, 5, []string{"a", "bc", ""}, []string{"bc", ""}},
		{"a wrapped line", []string{"0123456789abc", "x"}, 5, []string{"01234", "56789", "abc", "x"}, []string{"56789abc", "x"}},
		{"a line exactly as wide", []string{"01234", "y"}, 5, []string{"01234", "y"}, []string{"y"}},
		{"wrapped at spaces", []string{"ab   cd"}, 5, []string{"ab", "cd"}, []string{"cd"}},
		{"wide characters", []string{"日本語日本"}, 4, []string{"日本", "語日", "本"}, []string{"語日本"}},
		{"a wide character that did not fit", []string{"abcd 日x"}, 5, []string{"abcd", "日x"}, []string{"日x"}},
		{"combining marks", []string{"e\u0301e\u0301e\u0301x"}, 3, []string{"e\u0301e\u0301e\u0301", "x"}, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := splitLines(tt.lines, tt.width)
			if !slices.Equal(s.rows, tt.rows) {
				t.Errorf("rows = %q, want %q", s.rows, tt.rows)
			}
			if got := s.from(1); !slices.Equal(got, tt.from1) {
				t.Errorf("from(1) = %q, want %q", got, tt.from1)
			}
		})
	}
}
