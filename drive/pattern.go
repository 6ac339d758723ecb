package drive

import "regexp"

// LinePattern is a compiled wait pattern. Lines are read without their
// trailing blanks (tmux pads a row with blanks to the pane's edge and a
// capture drops them), so a pattern may end in blanks the line no longer
// has: a literal pattern's trailing blanks match blanks or the end of the
// line, and a regex is tried on the line and then on the line followed by
// one blank (so ">>> " and `\$ $` match a prompt at the end of a line).
type LinePattern struct {
	Re  *regexp.Regexp
	Pad bool // try the line followed by one blank too
}

// Match reports whether line holds lp.
func (lp LinePattern) Match(line string) bool {
	return lp.Re.MatchString(line) || lp.Pad && lp.Re.MatchString(line+" ")
}

// Matching returns the lines lp matches.
func Matching(lp LinePattern, lines []string) []string {
	var out []string
	for _, l := range lines {
		if lp.Match(l) {
			out = append(out, l)
		}
	}
	return out
}
