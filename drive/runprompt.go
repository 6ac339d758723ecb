package drive

import (
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// promptMark finds a run's prompt row again after tmux freed history
// lines: by the rows just above it when the line was typed (history,
// which a program cannot rewrite, once they scrolled off the screen),
// at the rows where it can be (see screenAnchor: its row reckoned from the
// history sizes, less a multiple of what one freeing takes). The run's
// anchor is the top of that screen, often far above the prompt, and may
// have been freed while the prompt's row was not.
type promptMark struct {
	fp []string // digests of the rows above the prompt's, top down
	// head is what the prompt's row shows once the command is shown
	// after the prompt, right-trimmed: the rows above a row can repeat
	// (a command run again), the two together hardly.
	head string
}

// newPromptMark marks the row at index i of rows, which will show head.
func newPromptMark(rows []string, i int, head string) promptMark {
	m := promptMark{head: strings.TrimRight(head, " ")}
	if i < 0 || i > len(rows) {
		return m
	}
	for _, r := range rows[max(i-AnchorRows, 0):i] {
		m.fp = append(m.fp, rowHash(strings.TrimRight(r, " ")))
	}
	return m
}

// locate returns the index in rows (a capture ending at the bottom of
// pn's screen, row 0 at index first) of the prompt's row, which is at row
// reckoned (or a multiple of drop above); found is false when no row
// there shows the head with the rows above it that the mark holds (those
// of them the capture holds).
func (m promptMark) locate(rows []string, first int, pn tmux.Pane, reckoned int) (int, bool) {
	if m.head == "" {
		return 0, false
	}
	drop := historyDrop(pn.HistoryLimit)
	for i := reckoned + first; i >= 0; i -= drop {
		if i >= len(rows) || strings.TrimRight(rows[i], " ") != m.head {
			continue
		}
		// The rows above it, as many as the capture holds (a pane
		// without history loses those that scroll off).
		k := min(len(m.fp), i)
		match := true
		for j, want := range m.fp[len(m.fp)-k:] {
			if rowHash(strings.TrimRight(rows[i-k+j], " ")) != want {
				match = false
				break
			}
		}
		if match {
			return i, true
		}
	}
	return 0, false
}
