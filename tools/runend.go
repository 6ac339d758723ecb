package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

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
func (r *run) readEnd(ctx context.Context) (*runEnd, error) {
	out, err := r.srv.Do(ctx, "show-options", "-p", "-q", "-v", "-t", string(r.pane), r.option())
	switch {
	case errors.Is(err, tmux.ErrNotFound):
		return nil, paneNotFound(r.pane)
	case err != nil:
		return nil, err
	}
	v := strings.TrimSpace(string(out))
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
func (r *run) result(ctx context.Context, base tmux.Pane) (runResult, *runEnd, error) {
	end, err := r.readEnd(ctx)
	if err != nil {
		return runResult{}, nil, err
	}
	res, err := r.collect(ctx, base, end)
	return res, end, err
}

// clearEnd removes the run's pane option, once its end was read.
func (r *run) clearEnd(ctx context.Context) {
	r.srv.Do(ctx, "set-option", "-p", "-u", "-t", string(r.pane), r.option()) //nolint:errcheck // a pane gone took it along
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
