package journal

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// paneDir is where a restored pane starts: where it was, else where it
// started, else where tmux-mcp started it.
func paneDir(pn Pane) string {
	switch {
	case pn.Path != "":
		return pn.Path
	case pn.StartPath != "":
		return pn.StartPath
	case pn.Created != nil:
		return pn.Created.Cwd
	}
	return ""
}

var leafCell = regexp.MustCompile(`\d+x\d+,\d+,\d+,\d+`)

// layoutCells counts the panes a layout string has room for. tmux applies
// a layout to a window with fewer panes (it closes the cells left over)
// but refuses one with more.
func layoutCells(layout string) int {
	return len(leafCell.FindAllStringIndex(layout, -1))
}

func idNumber(id string) int {
	n, err := strconv.Atoi(strings.TrimLeft(id, "$@%"))
	if err != nil {
		return -1
	}
	return n
}

func sortedSessions(ss []Session) []Session {
	out := slices.Clone(ss)
	slices.SortStableFunc(out, func(a, b Session) int { return idNumber(string(a.ID)) - idNumber(string(b.ID)) })
	return out
}

func sortedWindows(ws []Window) []Window {
	out := slices.Clone(ws)
	slices.SortStableFunc(out, func(a, b Window) int { return a.Index - b.Index })
	return out
}

func sortedPanes(ps []Pane) []Pane {
	out := slices.Clone(ps)
	slices.SortStableFunc(out, func(a, b Pane) int { return a.Index - b.Index })
	return out
}
