package drive

import (
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// splitRows is a joined capture (capture-pane -J) cut back into the pane's
// rows, so that one capture gives both: lines to match text in, and rows
// to count and to find an anchor by (see screenAnchor). With -J, tmux
// prints each row's cells up to the row's allocated size, trailing blanks
// kept, and joins a row to the next when the line wrapped there; a row
// that wrapped holds exactly the pane's width in cells (a wide character
// that did not fit left its cell blank). So a line covers the cells of its
// rows, width cells a row.
type splitRows struct {
	lines []string
	rows  []string // right-trimmed, as capture-pane prints rows unjoined
	at    []rowStart
}

// rowStart is where a row begins in the lines: line index, byte offset.
type rowStart struct{ line, off int }

// splitLines cuts lines, a joined capture of a pane width cells wide, into
// its rows.
func splitLines(lines []string, width int) splitRows {
	s := splitRows{lines: lines}
	for i, l := range lines {
		start, cells := 0, 0
		for off, r := range l {
			w := cellWidth(r)
			if cells+w > width && cells > 0 {
				s.add(l[start:off], i, start)
				start, cells = off, 0
			}
			cells += w
		}
		s.add(l[start:], i, start)
	}
	return s
}

func (s *splitRows) add(row string, line, off int) {
	s.rows = append(s.rows, strings.TrimRight(row, " "))
	s.at = append(s.at, rowStart{line, off})
}

// from returns the lines from row i on, the first one cut where row i
// begins, right-trimmed.
func (s splitRows) from(i int) []string {
	if i >= len(s.rows) {
		return nil
	}
	at := s.at[max(i, 0)]
	out := append([]string{s.lines[at.line][at.off:]}, s.lines[at.line+1:]...)
	for k := range out {
		out[k] = strings.TrimRight(out[k], " ")
	}
	return out
}

// nextLine returns the first row after row i that begins a line, or
// len(s.rows) if none does: the rows from i up to it hold the rest of row
// i's line.
func (s splitRows) nextLine(i int) int {
	return s.afterLine(s.lineOf(i))
}

// afterLine returns the first row of the lines after line l, or
// len(s.rows) if l is the last.
func (s splitRows) afterLine(l int) int {
	return sort.Search(len(s.at), func(k int) bool { return s.at[k].line > l })
}

// lineOf returns the index in s.lines of row i's line (of the first row
// for i < 0, past the last line for i past the last row).
func (s splitRows) lineOf(i int) int {
	if i >= len(s.at) {
		return len(s.lines)
	}
	return s.at[max(i, 0)].line
}

// cellWidth is how many cells tmux gives a character: two for East Asian
// wide and full-width characters (most emoji among them), none for
// combining marks and joiners (tmux adds them to the cell before), one
// otherwise.
func cellWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf), r >= 0xfe00 && r <= 0xfe0f:
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
