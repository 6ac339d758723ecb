package drive

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Caps of wait_for_text's tail and matched_lines.
const (
	WaitTailLines = 20
	WaitTailBytes = 2000
)

// liveEvery is how often a wait checks that its pane still exists.
const liveEvery = time.Second

// DefaultInterval is a wait's polling period without change events.
const DefaultInterval = 50 * time.Millisecond

// CheckSpacing is the least time between two reads of a waited-on pane:
// output that keeps coming is read at most 20 times a second, the rate the
// supervisor lets captures of one pane reach tmux.
const CheckSpacing = 50 * time.Millisecond

// WaitResult is what a wait found: wait_for_text's result (tools
// serves it as it is, with Elapsed set).
type WaitResult struct {
	Found            bool     `json:"found"`
	Outcome          string   `json:"outcome"`
	MatchedIndex     *int     `json:"matched_index"`
	MatchedLines     []string `json:"matched_lines"`
	Tail             []string `json:"tail"`
	SawNewOutput     bool     `json:"saw_new_output"`
	MatchedAtEntry   bool     `json:"matched_at_entry"`
	AlternateScreen  bool     `json:"alternate_screen"`
	PaneID           string   `json:"pane_id"`
	Elapsed          float64  `json:"elapsed_seconds"`
	EffectiveTimeout float64  `json:"effective_timeout"`
	Detection        string   `json:"detection"`
	// HistoryOverflowed: tmux freed lines of the pane's history (its
	// history-limit) that were printed since the baseline before they
	// could be read; how many is not known.
	HistoryOverflowed bool `json:"history_overflowed"`
	// Since is the baseline: "last_send" (output since this process last
	// typed into the pane, less what earlier waits matched) or "call".
	Since string `json:"since"`
	// PrintedBeforeCall: the match (or stop) was output printed since the
	// last send that was already there when the call began.
	PrintedBeforeCall bool `json:"printed_before_call"`
}

// The baselines of a wait (its since parameter).
const (
	SinceSend = "last_send"
	SinceCall = "call"
)

// waiter is one wait_for_text.
//
// Only text written after the baseline counts. At the call the baseline
// anchors at the top of the screen (see screenAnchor) and notes the
// cursor's row and the rows from there to the bottom of the screen; each
// time the pane may have changed it reads the rows from the first row not
// read yet down (see follow), and a row that was not among the entry rows
// is new. From the pane's last send (see sendMark) the baseline is the
// mark's, read at once: what was printed since the send is there already.
// Changes come from the supervisor's watcher connection (%output), so a
// silent pane costs nothing; without one, the pane is polled.
//
// A waiter is made of its parts: what it waits for (question), the mark
// it started from (markRef), the baseline that tells new rows from old
// (baseline), and what its reads found so far (reading).
type waiter struct {
	srv  *supervisor.Server
	pane tmux.PaneID
	question
	markRef
	baseline
	reading
	res WaitResult
}

// question is what a wait waits for, and how long.
type question struct {
	patterns []LinePattern // nil: any new output
	stop     []LinePattern
	timeout  time.Duration
	start    time.Time
	ceiling  Ceiling
	progress Progress
}

// markRef is the pane's marks as a wait uses them: from is the mark to
// start from (nil: the call), seq the mark the wait began under, which
// its match advances.
type markRef struct {
	marks *Panes
	key   PaneKey
	seq   uint64
	from  *sendMark
}

// baseline tells the rows printed since the wait's start from those
// that were there.
type baseline struct {
	base   tmux.Pane    // the pane at entry
	anchor screenAnchor // at or above the first row not yet read
	skip   int          // rows from the anchor down that are not new: those above the cursor at entry
	cut    bool         // the line holding row skip is the send's own (see sendMark)
	echo   int          // see sendMark
	first  bool         // the first read from a send's mark
	entry  map[string]bool
}

// reading is what the wait's reads found so far.
type reading struct {
	// prev is the state read with the last capture; stale says that the
	// check under way started from it rather than from a state read of
	// its own (see check).
	prev   tmux.Pane
	stale  bool
	past   []string // lines read above the anchor, for tail
	rows   []string // the rows last read, for tail
	last   readPos  // where the rows last read came from
	hit    int      // the index in rows of the last line the outcome matched
	screen []string // the screen at the first read from a mark
}

// Wait is what one wait waits for (wait_for_text, send_keys' wait_for).
type Wait struct {
	Patterns []LinePattern // nil: any new output
	Stop     []LinePattern
	// Start is when the call began: Timeout counts from it.
	Start   time.Time
	Timeout time.Duration
	// Interval is the polling period where no change events can be had.
	Interval time.Duration
	// FromSend starts from the pane's last send, if one was recorded;
	// else the wait starts from the call.
	FromSend bool
	Ceiling  Ceiling
	Progress Progress
}

// Wait runs q on pane.
func (io *Panes) Wait(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, q Wait) (WaitResult, error) {
	w := &waiter{srv: srv, pane: pane,
		question: question{patterns: q.Patterns, stop: q.Stop, timeout: q.Timeout, start: q.Start, ceiling: q.Ceiling, progress: q.Progress},
		markRef:  markRef{marks: io, key: PaneKey{srv.Socket(), pane}}}
	if m, ok := io.mark(w.key); ok {
		w.seq = m.seq
		if q.FromSend {
			w.from = &m
		}
	}
	return w.wait(ctx, q.Interval)
}

// readPos is where the rows a wait read come from: a capture cut into
// rows, the index of row 0 in it, the index of the first line read among
// its lines. ok is false for reads that do not follow the anchor.
type readPos struct {
	s           splitRows
	first, line int
	ok          bool
}

// errMarkLost: the send's mark is not where it can be found exactly (the
// pane was resized, cleared or scrolled past its history): the wait
// counts from its call instead.
var errMarkLost = errors.New("tools: the last send's anchor is lost")

func (w *waiter) wait(ctx context.Context, interval time.Duration) (WaitResult, error) {
	// Subscribe before the baseline is read, so no change is missed.
	feed := WatchPane(ctx, w.srv, w.pane, interval)
	defer func() { feed.Close() }()
	outcome, err := w.arm(ctx)
	if err != nil {
		return WaitResult{}, err
	}
	w.res.PaneID, w.res.EffectiveTimeout = string(w.pane), w.timeout.Seconds()
	if outcome != "" {
		w.res.PrintedBeforeCall = true
		return w.finish(feed, outcome), nil
	}
	stop := w.progress.start(ctx, w.timeout, "waiting for text on pane "+string(w.pane))
	defer stop()
	deadline := time.NewTimer(w.timeout - time.Since(w.start)) // the timeout counts from the call
	defer deadline.Stop()
	live := time.NewTicker(liveEvery)
	defer live.Stop()
	var laterC <-chan time.Time // a check put off by CheckSpacing or a rate limit
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return WaitResult{}, ctx.Err()
		case <-deadline.C:
			return w.finish(feed, "timeout"), nil
		case <-live.C:
			// A pane that went away without a change event (its window
			// closed) is noticed here, at the cost of one display-message.
			if _, err := w.state(ctx); err != nil {
				return WaitResult{}, err
			}
			continue
		case _, ok := <-feed.C:
			if !ok {
				// The watcher connection ended: the pane or its session
				// may be gone (the check says), or a new one is needed.
				feed.Reopen(ctx)
			}
			if laterC != nil {
				continue // a check is already due
			}
			if wait := CheckSpacing - time.Since(last); wait > 0 {
				laterC = time.After(wait)
				continue
			}
		case <-laterC:
			laterC = nil
		}
		last = time.Now()
		// With events, a check follows a change of the pane (or of its
		// window's layout): the cache cannot answer it.
		outcome, err := w.check(ctx, feed.events)
		var rl interface{ RetryDelay() time.Duration }
		switch {
		case errors.As(err, &rl) && errors.Is(err, supervisor.ErrRateLimited):
			laterC = time.After(rl.RetryDelay())
			continue
		case err != nil:
			return WaitResult{}, err
		case outcome != "":
			return w.finish(feed, outcome), nil
		}
	}
}

// arm reads the baseline. From a send's mark it reads what was printed
// since at once, and returns the outcome if that decides the wait;
// otherwise, or if the mark is lost, the baseline is the call's.
func (w *waiter) arm(ctx context.Context) (string, error) {
	pn, err := ReadPane(ctx, w.srv, w.pane)
	if err != nil {
		return "", err
	}
	if pn.Dead {
		return "", w.died()
	}
	w.base = pn
	if m := w.from; m != nil && !pn.AlternateOn {
		if m.pid == pn.PID {
			outcome, err := w.armFromSend(ctx, *m)
			if !errors.Is(err, errMarkLost) {
				return outcome, err
			}
		}
		// Respawned, or lost: it will not be found next time either.
		w.marks.forgetMark(w.key, m.seq)
		w.seq = 0
	}
	return "", w.armAtCall(ctx, pn)
}

// armFromSend starts from m and reads once.
func (w *waiter) armFromSend(ctx context.Context, m sendMark) (string, error) {
	w.anchor, w.skip, w.cut, w.echo, w.entry = m.anchor, m.skip, m.cut, m.echo, m.entry
	w.first = true
	outcome, err := w.check(ctx, false)
	w.first = false
	w.res.Since = SinceSend
	if err != nil || outcome != "" {
		return outcome, err
	}
	// What the read found on the screen and did not count is older.
	for _, lp := range w.patterns {
		if len(Matching(lp, w.screen)) > 0 {
			w.res.MatchedAtEntry = true
		}
	}
	w.screen = nil
	return "", nil
}

// armAtCall reads the baseline at the call: the anchor, the cursor's row
// and the rows from it down, and whether a pattern already shows on the
// screen.
func (w *waiter) armAtCall(ctx context.Context, pn tmux.Pane) error {
	w.res.Since = SinceCall
	w.cut, w.echo, w.past, w.rows, w.res.SawNewOutput = false, 0, nil, nil, false
	s, pn, _, err := w.takeAnchor(ctx, pn)
	if err != nil {
		return err
	}
	// The capture that gave the anchor holds the rest of the baseline.
	first := max(len(s.rows)-pn.Height, 0)
	rows := s.from(first + w.skip)
	w.rows, w.entry = rows, map[string]bool{}
	for _, r := range rows {
		w.entry[r] = true
	}
	if w.patterns == nil {
		return nil
	}
	visible := s.from(first)
	for _, lp := range w.patterns {
		if len(Matching(lp, visible)) > 0 {
			w.res.MatchedAtEntry = true
		}
	}
	return nil
}

// takeAnchor anchors at the top of the screen, with the cursor's row as
// the first new one, and returns the capture it took it from (the rows
// above the screen it is found by, and the screen) and the pane's state
// it goes with. The rows are read until the pane holds still between two
// reads of its state, stableTries times at most; settled says it did.
func (w *waiter) takeAnchor(ctx context.Context, pn tmux.Pane) (splitRows, tmux.Pane, bool, error) {
	for try := 1; ; try++ {
		s, after, err := w.split(ctx, pn, -min(pn.HistorySize, AnchorRows), false)
		if err != nil {
			return splitRows{}, pn, false, err
		}
		if still(pn, after) || try == stableTries {
			w.anchor = takeAnchor(pn, after, s.rows, pn.CursorY)
			w.skip = max(pn.CursorY-w.anchor.slack, 0)
			return s, pn, still(pn, after), nil
		}
		pn = after
	}
}

// still reports whether nothing scrolled and the cursor did not move
// between two reads of a pane's state.
func still(before, after tmux.Pane) bool {
	return after.HistorySize == before.HistorySize && after.CursorY == before.CursorY && after.Height == before.Height &&
		after.Width == before.Width && after.AlternateOn == before.AlternateOn
}

// read captures from row top (joined, so text wrapped across rows is one
// line) to the bottom, one string per line, trailing blanks dropped, and
// reads the pane's state after the capture. changed skips the cache (see
// supervisor.CaptureRequest.Changed).
func (w *waiter) read(ctx context.Context, top int, changed bool) ([]string, tmux.Pane, error) {
	c, after, err := w.captureState(ctx, supervisor.CaptureRequest{Pane: w.pane, Start: &top, Join: true, Changed: changed})
	if err != nil {
		return nil, after, err
	}
	rows := strings.Split(strings.TrimSuffix(string(c.Content), "\n"), "\n")
	for i := range rows {
		rows[i] = strings.TrimRight(rows[i], " ")
	}
	return rows, after, nil
}

// state reads the pane and fails if the wait cannot go on: the pane is
// gone, dead or respawned.
func (w *waiter) state(ctx context.Context) (tmux.Pane, error) {
	pn, err := ReadPane(ctx, w.srv, w.pane)
	if errors.Is(err, tmux.ErrPaneNotFound) {
		return pn, &PaneGoneError{Pane: w.pane, During: true}
	}
	if err != nil {
		return pn, err
	}
	return pn, w.valid(pn)
}

// valid fails if the wait cannot go on with the pane's state pn: the pane
// died or was respawned.
func (w *waiter) valid(pn tmux.Pane) error {
	switch {
	case pn.ID != w.pane:
		return &PaneGoneError{Pane: w.pane, During: true}
	case pn.Dead:
		return w.died()
	case w.base.PID != 0 && pn.PID != w.base.PID:
		return &RespawnedError{Pane: w.pane, Was: w.base.PID, Now: pn.PID}
	}
	return nil
}

func (w *waiter) died() error {
	return &DeadError{Pane: w.pane}
}

// finish fills in the result for outcome. A wait that matched moves the
// pane's mark to just after its match (see sendMark).
func (w *waiter) finish(feed *Feed, outcome string) WaitResult {
	if outcome == "timeout" && w.res.AlternateScreen {
		outcome = "alternate_screen"
	}
	r := w.res
	r.Outcome = outcome
	r.Found = outcome == "matched" || outcome == "any_output"
	r.MatchedAtEntry = r.MatchedAtEntry && !r.Found
	r.MatchedLines, _, _ = capture.CapTail(append([]string{}, r.MatchedLines...), WaitTailLines, WaitTailBytes)
	r.Tail, _, _ = capture.CapTail(trimRows(append(append([]string{}, w.past...), w.rows...)), WaitTailLines, WaitTailBytes)
	r.Detection = feed.Mode()
	if w.seq != 0 && (r.Found || outcome == "stopped") {
		if m, ok := w.consumed(); ok {
			w.marks.advanceMark(w.key, w.seq, m)
		} else {
			w.marks.forgetMark(w.key, w.seq)
		}
	}
	return r
}

// consumed is the mark just after the line w.hit of the last read, if
// that read followed the anchor exactly.
func (w *waiter) consumed() (sendMark, bool) {
	if !w.last.ok || w.anchor.slack > 0 {
		return sendMark{}, false
	}
	// w.anchor is at the top of the screen of the last read's capture.
	r := w.last.s.afterLine(w.last.line+w.hit) - w.last.first
	a := w.anchor
	if r < 0 {
		a, r = a.shifted(r, w.last.s.rows), 0
	}
	return sendMark{pid: w.base.PID, anchor: a, skip: r, entry: w.entry}, true
}
