package drive

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// A run's end, as its ending recorded it (runEnd), and the output up to
// it, read from scrollback (result, collect, cut).

// runEnd is what a run's ending recorded in its pane option (see
// run.ending): the command's status and where the cursor was once tmux
// had read all of its output.
type runEnd struct {
	status        int
	hsize, cy, cx int
	width, height int
}

// parseRunEnd reads "status history_size cursor_y cursor_x width height".
func parseRunEnd(s string) (runEnd, error) {
	f := strings.Fields(s)
	if len(f) != 6 {
		return runEnd{}, fmt.Errorf("tools: run end %q: want 6 fields", s)
	}
	var n [6]int
	for i, v := range f {
		x, err := strconv.Atoi(v)
		if err != nil {
			return runEnd{}, fmt.Errorf("tools: run end %q: %w", s, err)
		}
		n[i] = x
	}
	return runEnd{status: n[0], hsize: n[1], cy: n[2], cx: n[3], width: n[4], height: n[5]}, nil
}

// readEnd returns the run's end if its ending recorded one, or nil.
func (r *Run) readEnd(ctx context.Context) (*runEnd, error) {
	out, err := r.srv.PaneOption(ctx, r.pane, r.option())
	switch {
	case errors.Is(err, tmux.ErrNotFound):
		return nil, paneNotFound(r.pane)
	case err != nil:
		return nil, err
	}
	v := strings.TrimSpace(out)
	if v == "" {
		return nil, nil
	}
	e, err := parseRunEnd(v)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// result reads the run's end, if recorded, and the output up to it, or to
// the cursor while the command runs (end nil).
func (r *Run) result(ctx context.Context, base tmux.Pane) (RunResult, *runEnd, error) {
	end, err := r.readEnd(ctx)
	if err != nil {
		return RunResult{}, nil, err
	}
	res, err := r.collect(ctx, base, end)
	return res, end, err
}

// collect reads the output from scrollback: from the lines after the
// command's own (after the prompt's row, which the anchor finds, even
// after tmux freed history lines) to the end recorded, or with end nil (the
// command still runs) to the cursor. The capture goes back no further than
// a capture may hold; output that begins before that, or whose start tmux
// freed, is truncated.
func (r *Run) collect(ctx context.Context, base tmux.Pane, end *runEnd) (RunResult, error) {
	var res RunResult
	wide := false // the anchor was not where it can be after two drops: look through the history
	for try := 1; ; try++ {
		now, err := ReadPane(ctx, r.srv, r.pane)
		if err != nil {
			return RunResult{}, err
		}
		// The prompt's row, if no line was freed since the anchor (in a
		// pane without history, lines that scroll off the screen are
		// gone uncounted: the mark finds it).
		prompt, settled := r.anchor.settled(now)
		prompt += base.CursorY
		settled = settled && now.HistoryLimit > 0
		limit := -min(now.HistorySize, r.maxLines-now.Height)
		top := max(prompt, limit)
		if !settled && !wide {
			top = max(r.anchor.reach(now), limit)
		} else if !settled {
			top = limit
		}
		c, err := ReadCapture(ctx, r.srv, supervisor.CaptureRequest{Pane: r.pane, Start: &top, Join: true,
			MaxLines: max(min(now.Height-top, r.maxLines), 1), MaxBytes: r.maxBytes})
		if err != nil {
			return RunResult{}, err
		}
		after, err := ReadPane(ctx, r.srv, r.pane)
		if err != nil {
			return RunResult{}, err
		}
		if !still(now, after) && try < stableTries {
			continue // it scrolled under the capture: the rows moved
		}
		s := splitLines(strings.Split(strings.TrimSuffix(string(c.Content), "\n"), "\n"), now.Width)
		first := len(s.rows) - now.Height // the index of row 0
		found := settled
		if !settled {
			var i int
			if i, found = r.mark.locate(s.rows, first, now, prompt); found {
				prompt = i - first
			} else if !wide && top > limit && r.mark.head != "" {
				wide = true
				continue
			}
		}
		endRow, endX, ok := now.CursorY, now.CursorX, end == nil
		if end != nil {
			endRow, ok = end.row(now)
			endX = end.cx
		}
		if !ok {
			// Resized since the end: the rows were rewrapped; the output
			// ends before the cursor's row, where the prompt is.
			endRow, endX = now.CursorY, 0
		}
		res = r.cut(s, first, prompt, found && prompt+first >= 0, endRow, endX, now)
		res.HistoryOverflowed = res.Truncated && !found && r.anchor.mayHaveDropped(now)
		if end != nil {
			status := end.status
			res.ExitStatus = &status
		} else {
			// Still running: what it printed so far, without the blank
			// rows below.
			for len(res.Output) > 0 && res.Output[len(res.Output)-1] == "" {
				res.Output = res.Output[:len(res.Output)-1]
			}
		}
		return res, nil
	}
}

// cut takes the output from s, a capture of pn whose row 0 is at index
// first: the lines after the command's own (the lines from the prompt's
// row on, when known) up to column endX of row endRow. Without the
// prompt's row the output begins at the first line captured and is
// truncated. It also tells whether the shell's prompt shows after the
// end: text after the end on the cursor's row, left of the cursor, which
// rests before the right margin (zsh ends a line without a newline with a
// mark and blanks up to the margin, then prints its prompt below).
func (r *Run) cut(s splitRows, first, prompt int, known bool, endRow, endX int, pn tmux.Pane) RunResult {
	var res RunResult
	start := 0
	if known {
		start = s.lineOf(prompt+first) + r.lines
	} else {
		res.Truncated = true
	}
	ei := min(max(endRow+first, 0), len(s.rows)-1)
	if ei < 0 {
		res.Output = []string{}
		return res
	}
	at := s.at[ei]
	stop := at.off + cellOffset(s.lines[at.line][at.off:], endX)
	var out []string
	for i := start; i < at.line && i < len(s.lines); i++ {
		out = append(out, strings.TrimRight(s.lines[i], " "))
	}
	if start <= at.line && stop > 0 {
		out = append(out, strings.TrimRight(s.lines[at.line][:stop], " "))
	}
	if out == nil {
		out = []string{}
	}
	res.Output = out
	if ci := pn.CursorY + first; pn.CursorX < pn.Width && ci >= ei && ci < len(s.rows) {
		row := s.lines[s.at[ci].line][s.at[ci].off:]
		from := 0
		if ci == ei {
			from = stop - at.off
		}
		if to := cellOffset(row, pn.CursorX); to > from {
			res.Prompted = strings.TrimSpace(row[from:to]) != ""
		}
	}
	return res
}

// clearEnd removes the run's pane option, once its end was read.
func (r *Run) clearEnd(ctx context.Context) {
	r.srv.UnsetPaneOption(ctx, r.pane, r.option()) //nolint:errcheck // a pane gone took it along
}

// row returns the row the end is at in pn, a later state of the pane: the
// recorded row, less the lines that scrolled off the screen since. ok is
// false when the pane was resized since (tmux rewraps its lines).
//
// Lines scrolled since add to the history size, but once the history is
// at its limit tmux frees a tenth of it at once (see screenAnchor): where
// that can have happened, what scrolled is the difference modulo what one
// freeing takes, as long as fewer lines than that scrolled since the end
// (the prompt's, usually none or one).
func (e runEnd) row(pn tmux.Pane) (row int, ok bool) {
	if pn.Width != e.width || pn.Height != e.height {
		return 0, false
	}
	d := pn.HistorySize - e.hsize
	limit := pn.HistoryLimit
	drop := historyDrop(limit)
	switch {
	case limit == 0:
		d = 0 // no history kept: nothing to count by
	case d < 0 || pn.HistorySize > limit-drop:
		d = (d%drop + drop) % drop
	}
	return e.cy - d, true
}
