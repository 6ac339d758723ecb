package drive

import (
	"slices"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestRunEndRow: the recorded end's row in a later state of the pane is
// its row less the lines that scrolled since, found modulo a freeing once
// the history is at its limit; a resized pane has no such row.
func TestRunEndRow(t *testing.T) {
	end := runEnd{hsize: 50, cy: 20, width: 80, height: 24}
	tests := []struct {
		name   string
		now    tmux.Pane
		want   int
		wantOK bool
	}{
		{"nothing scrolled", tmux.Pane{HistorySize: 50, HistoryLimit: 2000, Width: 80, Height: 24}, 20, true},
		{"the prompt scrolled a line", tmux.Pane{HistorySize: 51, HistoryLimit: 2000, Width: 80, Height: 24}, 19, true},
		{"no history kept", tmux.Pane{HistorySize: 0, HistoryLimit: 0, Width: 80, Height: 24}, 20, true},
		{"resized", tmux.Pane{HistorySize: 50, HistoryLimit: 2000, Width: 100, Height: 24}, 0, false},
	}
	for _, tt := range tests {
		if got, ok := end.row(tt.now); got != tt.want || ok != tt.wantOK {
			t.Errorf("%s: row = %d, %v; want %d, %v", tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
	// At the limit (100 lines, a freeing takes 10): one line scrolled,
	// and tmux freed 10 before it.
	full := runEnd{hsize: 100, cy: 20, width: 80, height: 24}
	if got, ok := full.row(tmux.Pane{HistorySize: 91, HistoryLimit: 100, Width: 80, Height: 24}); got != 19 || !ok {
		t.Errorf("at the limit: row = %d, %v; want 19, true", got, ok)
	}
	if _, err := parseRunEnd("0 1 2 3 80"); err == nil {
		t.Error("parseRunEnd of 5 fields: no error")
	}
	if got, err := parseRunEnd("3 10 5 7 80 24"); err != nil || got != (runEnd{status: 3, hsize: 10, cy: 5, cx: 7, width: 80, height: 24}) {
		t.Errorf("parseRunEnd = %+v, %v", got, err)
	}
}

// TestRunCut: the output is the lines after the command's own up to the
// recorded end, a line without a newline cut at the end's column, wrapped
// lines joined; the prompt shows when text follows the end on the
// cursor's row, left of the cursor, before the right margin.
func TestRunCut(t *testing.T) {
	const w = 10
	tests := []struct {
		name         string
		lines        []string // joined, from the prompt's row to the bottom
		cmdLines     int
		endRow, endX int // rows from the prompt's row
		curRow, curX int
		want         []string
		wantPrompted bool
	}{
		{"two lines and the prompt", []string{"$ echo", "a", "b", "$"}, 1, 3, 0, 3, 2, []string{"a", "b"}, true},
		{"no output", []string{"$ true", "$"}, 1, 1, 0, 1, 2, []string{}, true},
		{"no newline, prompt after", []string{"$ printf", "partial$"}, 1, 1, 7, 1, 9, []string{"partial"}, true},
		{"a command of two lines", []string{"$ echo a", "echo b", "a", "b", "$"}, 2, 4, 0, 4, 2, []string{"a", "b"}, true},
		{"wrapped output", []string{"$ x", "0123456789abc", "$"}, 1, 3, 0, 3, 2, []string{"0123456789abc"}, true},
		{"no newline at a wrap", []string{"$ x", "0123456789abc$"}, 1, 2, 3, 2, 5, []string{"0123456789abc"}, true},
		{"prompt not yet", []string{"$ echo", "a", ""}, 1, 2, 0, 2, 0, []string{"a"}, false},
		{"zsh's mark, blanks to the margin", []string{"$ printf", "partial#  "}, 1, 1, 7, 1, 10, []string{"partial"}, false},
		{"trailing blanks trimmed", []string{"$ x", "a   ", "$"}, 1, 2, 0, 2, 2, []string{"a"}, true},
	}
	for _, tt := range tests {
		s := splitLines(tt.lines, w)
		height := len(s.rows)
		r := &Run{lines: tt.cmdLines}
		// The capture is the whole screen: row 0 is the prompt's.
		got := r.cut(s, 0, 0, true, tt.endRow, tt.endX, tmux.Pane{Width: w, Height: height, CursorY: tt.curRow, CursorX: tt.curX})
		if !slices.Equal(got.Output, tt.want) || got.Prompted != tt.wantPrompted || got.Truncated {
			t.Errorf("%s: cut = %q, prompted %v, truncated %v; want %q, prompted %v", tt.name, got.Output, got.Prompted, got.Truncated, tt.want, tt.wantPrompted)
		}
	}
	// Without the prompt's row, the output begins at the first line
	// captured and is truncated.
	s := splitLines([]string{"x", "y", "$"}, w)
	got := (&Run{lines: 1}).cut(s, 0, 0, false, 2, 0, tmux.Pane{Width: w, Height: 3, CursorY: 2, CursorX: 1})
	if !slices.Equal(got.Output, []string{"x", "y"}) || !got.Truncated {
		t.Errorf("without the prompt: cut = %q, truncated %v; want [x y], truncated", got.Output, got.Truncated)
	}
}
