package loadtest

import (
	"slices"
)

// labelCharW is the width, in SVG units, of one character of a marker
// label (class m, 10 px; an upper bound for the labels we draw).
const labelCharW = 6.2

// labelRowH is the height of one row of marker labels.
const labelRowH = 11

// labelRows lays out marker labels that start at xs (in SVG units) with the
// given texts so that no two overlap: each label takes the lowest row in
// which the labels already placed end before it starts (rows stack
// upwards from the bottom of the plot). At most maxRows rows are used;
// past them the labels go into the least crowded row, overlapping as
// little as possible. It returns each label's row, in the order given.
func labelRows(xs []float64, texts []string, maxRows int) []int {
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case xs[a] < xs[b]:
			return -1
		case xs[a] > xs[b]:
			return 1
		}
		return 0
	})
	maxRows = max(maxRows, 1)
	ends := make([]float64, 0, maxRows) // right end of the last label in each row
	rows := make([]int, len(xs))
	for _, i := range order {
		start, end := xs[i], xs[i]+float64(len(texts[i]))*labelCharW+4
		row := -1
		for r, e := range ends {
			if e <= start {
				row = r
				break
			}
		}
		if row < 0 && len(ends) < maxRows {
			ends = append(ends, 0)
			row = len(ends) - 1
		}
		if row < 0 {
			row = 0
			for r, e := range ends {
				if e < ends[row] {
					row = r
				}
			}
		}
		ends[row] = end
		rows[i] = row
	}
	return rows
}
