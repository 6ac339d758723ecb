package marks

// Tail is what a pane printed since its last D mark, kept so that the
// place of the end on the screen can be reckoned from where the cursor is
// now: the column the end was at (cells since the last carriage return),
// and the text printed since, as steps (a prompt, usually). Every
// character counts as one cell, and escape sequences as none: a tail that
// moves the cursor otherwise is reckoned wrong, which Reckon's caller
// checks against the cursor.
type Tail struct {
	Col   int // cells printed on the end's line before the end
	steps []step
	ok    bool // false: no D mark yet, or more printed than a tail keeps
}

type stepKind uint8

const (
	stepPrint stepKind = iota // n characters
	stepCR
	stepLF
	stepBS
	stepTab
	stepRight  // the cursor n cells right (CUF)
	stepLeft   // n cells left (CUB)
	stepColumn // to column n (CHA)
)

type step struct {
	kind stepKind
	n    int
}

// maxSteps and maxTailCells bound a tail: a prompt is a few steps; more
// means the command's end is far above (or output came after the prompt).
const (
	maxSteps     = 64
	maxTailCells = 4096
)

// add records one step, merging runs of characters.
func (t *Tail) add(k stepKind, n int) {
	if !t.ok {
		return
	}
	if k == stepPrint && len(t.steps) > 0 && t.steps[len(t.steps)-1].kind == stepPrint {
		t.steps[len(t.steps)-1].n += n
	} else {
		t.steps = append(t.steps, step{k, n})
	}
	cells := 0
	for _, s := range t.steps {
		if s.kind == stepPrint {
			cells += s.n
		}
	}
	if len(t.steps) > maxSteps || cells > maxTailCells {
		*t = Tail{}
	}
}

// clone returns a copy of t that shares nothing with it.
func (t Tail) clone() Tail {
	t.steps = append([]step(nil), t.steps...)
	return t
}

// Reckon returns, in a pane width cells wide, how many rows above the
// cursor the end is (rows), the end's column on its row (endX), and the
// column the cursor is at now by the tail's reckoning (curX), which the
// caller compares with the real cursor. ok is false when the tail is not
// known.
func (t Tail) Reckon(width int) (rows, endX, curX int, ok bool) {
	if !t.ok || width <= 0 {
		return 0, 0, 0, false
	}
	// A column of width means the cursor waits at the margin: the next
	// character wraps.
	col := t.Col
	if col > width {
		col = (col-1)%width + 1
	}
	endX = col
	for _, s := range t.steps {
		switch s.kind {
		case stepPrint:
			for range s.n {
				if col == width {
					rows++
					col = 0
				}
				col++
			}
		case stepCR:
			col = 0
		case stepLF:
			rows++
		case stepBS:
			col = max(0, min(col, width-1)-1)
		case stepTab:
			col = min((col/8+1)*8, width-1)
		case stepRight:
			col = min(min(col, width-1)+s.n, width-1)
		case stepLeft:
			col = max(min(col, width-1)-s.n, 0)
		case stepColumn:
			col = min(s.n, width-1)
		}
	}
	return rows, endX, min(col, width-1), true
}
