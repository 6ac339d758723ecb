package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Caps of wait_for_text's tail and matched_lines.
const (
	waitTailLines = 20
	waitTailBytes = 2000
)

// liveEvery is how often a wait checks that its pane still exists.
const liveEvery = time.Second

// defaultInterval is a wait's polling period without change events.
const defaultInterval = 50 * time.Millisecond

// checkSpacing is the least time between two reads of a waited-on pane:
// output that keeps coming is read at most 20 times a second, the rate the
// supervisor lets captures of one pane reach tmux.
const checkSpacing = 50 * time.Millisecond

type waitResult struct {
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

var waitSchema = record(tField, []string{"found", "outcome", "matched_lines", "tail", "saw_new_output", "matched_at_entry",
	"alternate_screen", "pane_id", "elapsed_seconds", "effective_timeout", "detection", "history_overflowed",
	"since", "printed_before_call"},
	map[string]any{"matched_index": tIntNull})

// The baselines of a wait (its since parameter).
const (
	sinceSend = "last_send"
	sinceCall = "call"
)

// WaitForText waits until text printed since the agent's last send to
// the pane, or after the call, matches.
func WaitForText(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("wait_for_text", "Wait until a line printed since your last send to the pane (else this call) holds a pattern (case-insensitive unless match_case; RE2 if regex) or a stop pattern; older text never matches. A pattern's trailing blanks match a line end.",
		hintsRead, waitSchema,
		paneTarget(mcp.WithArray("patterns", mcp.WithStringItems()), mcp.WithArray("stop", mcp.WithStringItems()),
			pRegex, pMatchCase, pTimeout, mcp.WithNumber("interval"), mcp.WithString("since", mcp.Enum(sinceSend, sinceCall)))...)
	return t, withRequest(handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		start := time.Now()
		w := &waiter{start: start}
		var err error
		if w.patterns, w.stop, err = waitPatterns(p); err != nil {
			return nil, err
		}
		interval := defaultInterval.Seconds()
		if v, ok := p.number("interval"); ok {
			interval = v
		}
		if interval < 0.01 {
			return nil, &toolError{msg: fmt.Sprintf("interval must be at least 0.01 s (received %g)", interval), class: "argument"}
		}
		timeout, err := d.timeoutArg(p, 8)
		if err != nil {
			return nil, err
		}
		srv, id, err := d.paneID(ctx, p)
		if err != nil {
			return nil, err
		}
		res, err := d.runWait(ctx, w, srv, id, timeout, time.Duration(interval*float64(time.Second)), p.str("since") != sinceCall)
		if err != nil {
			return nil, err
		}
		return structured(res)
	}))
}

// runWait runs w on pane, from the pane's last send if fromSend and one
// was recorded, else from the call.
func (d Deps) runWait(ctx context.Context, w *waiter, srv *supervisor.Server, pane tmux.PaneID, timeout, interval time.Duration,
	fromSend bool) (waitResult, error) {
	cfg := d.Sup.Config()
	w.srv, w.pane, w.timeout, w.ceiling = srv, pane, timeout, captureCeiling{cfg.MaxCaptureLines, cfg.MaxCaptureBytes}
	w.marks, w.key = d.panes, paneKey{srv.Socket(), pane}
	if m, ok := d.panes.mark(w.key); ok {
		w.seq = m.seq
		if fromSend {
			w.from = &m
		}
	}
	res, err := w.wait(ctx, interval)
	if err != nil {
		return waitResult{}, err
	}
	res.Elapsed = seconds(time.Since(w.start))
	return res, nil
}

// linePattern is a compiled wait pattern. Lines are read without their
// trailing blanks (tmux pads a row with blanks to the pane's edge and a
// capture drops them), so a pattern may end in blanks the line no longer
// has: a literal pattern's trailing blanks match blanks or the end of the
// line, and a regex is tried on the line and then on the line followed by
// one blank (so ">>> " and `\$ $` match a prompt at the end of a line).
type linePattern struct {
	re  *regexp.Regexp
	pad bool // try the line followed by one blank too
}

func (lp linePattern) match(line string) bool {
	return lp.re.MatchString(line) || lp.pad && lp.re.MatchString(line+" ")
}

// compileLinePattern compiles a wait pattern (see linePattern).
func compileLinePattern(s string, regex, matchCase bool) (linePattern, error) {
	if regex {
		re, err := compilePattern(s, true, matchCase)
		return linePattern{re: re, pad: true}, err
	}
	text := strings.TrimRightFunc(s, unicode.IsSpace)
	if text == s || text == "" {
		re, err := compilePattern(s, false, matchCase)
		return linePattern{re: re}, err
	}
	re, err := compilePattern(regexp.QuoteMeta(text)+"(?:"+regexp.QuoteMeta(s[len(text):])+"|$)", true, matchCase)
	return linePattern{re: re}, err
}

// waitPatterns compiles patterns (nil: any output) and stop.
func waitPatterns(p params) (patterns, stop []linePattern, err error) {
	regex, matchCase := p.boolean("regex"), p.boolean("match_case")
	compile := func(name, what string) ([]linePattern, error) {
		var out []linePattern
		for _, s := range p.strings(name) {
			if s == "" {
				return nil, &toolError{msg: what + " pattern must be a non-empty string", class: "argument"}
			}
			lp, err := compileLinePattern(s, regex, matchCase)
			if err != nil {
				return nil, err
			}
			out = append(out, lp)
		}
		return out, nil
	}
	if _, ok := p["patterns"]; ok {
		if len(p.strings("patterns")) == 0 {
			return nil, nil, &toolError{msg: "patterns must be a non-empty list, or null to wait for any new output", class: "argument"}
		}
		if patterns, err = compile("patterns", "patterns"); err != nil {
			return nil, nil, err
		}
	}
	stop, err = compile("stop", "stop")
	return patterns, stop, err
}

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
type waiter struct {
	srv      *supervisor.Server
	pane     tmux.PaneID
	patterns []linePattern // nil: any new output
	stop     []linePattern
	timeout  time.Duration
	start    time.Time
	ceiling  captureCeiling

	// The pane's marks: from is the mark to start from (nil: the call),
	// seq the mark the wait began under, which its match advances.
	marks *paneIO
	key   paneKey
	seq   uint64
	from  *sendMark

	// prev is the state read with the last capture; stale says that the
	// check under way started from it rather than from a state read of
	// its own (see check).
	prev  tmux.Pane
	stale bool

	base   tmux.Pane    // the pane at entry
	anchor screenAnchor // at or above the first row not yet read
	skip   int          // rows from the anchor down that are not new: those above the cursor at entry
	cut    bool         // the line holding row skip is the send's own (see sendMark)
	echo   int          // see sendMark
	first  bool         // the first read from a send's mark
	entry  map[string]bool
	past   []string // lines read above the anchor, for tail
	rows   []string // the rows last read, for tail
	last   readPos  // where the rows last read came from
	hit    int      // the index in rows of the last line the outcome matched
	screen []string // the screen at the first read from a mark
	res    waitResult
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

func (w *waiter) wait(ctx context.Context, interval time.Duration) (waitResult, error) {
	// Subscribe before the baseline is read, so no change is missed.
	feed := watchPane(ctx, w.srv, w.pane, interval)
	defer func() { feed.close() }()
	outcome, err := w.arm(ctx)
	if err != nil {
		return waitResult{}, err
	}
	w.res.PaneID, w.res.EffectiveTimeout = string(w.pane), w.timeout.Seconds()
	if outcome != "" {
		w.res.PrintedBeforeCall = true
		return w.finish(feed, outcome), nil
	}
	prog := startProgress(ctx, requestOf(ctx), w.timeout, "waiting for text on pane "+string(w.pane))
	defer prog.stop()
	deadline := time.NewTimer(w.timeout - time.Since(w.start)) // the timeout counts from the call
	defer deadline.Stop()
	live := time.NewTicker(liveEvery)
	defer live.Stop()
	var laterC <-chan time.Time // a check put off by checkSpacing or a rate limit
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return waitResult{}, ctx.Err()
		case <-deadline.C:
			return w.finish(feed, "timeout"), nil
		case <-live.C:
			// A pane that went away without a change event (its window
			// closed) is noticed here, at the cost of one display-message.
			if _, err := w.state(ctx); err != nil {
				return waitResult{}, err
			}
			continue
		case _, ok := <-feed.C:
			if !ok {
				// The watcher connection ended: the pane or its session
				// may be gone (the check says), or a new one is needed.
				feed.reopen(ctx)
			}
			if laterC != nil {
				continue // a check is already due
			}
			if wait := checkSpacing - time.Since(last); wait > 0 {
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
		var rl RetryAfterError
		switch {
		case errors.As(err, &rl) && errors.Is(err, supervisor.ErrRateLimited):
			laterC = time.After(rl.RetryDelay())
			continue
		case err != nil:
			return waitResult{}, err
		case outcome != "":
			return w.finish(feed, outcome), nil
		}
	}
}

// arm reads the baseline. From a send's mark it reads what was printed
// since at once, and returns the outcome if that decides the wait;
// otherwise, or if the mark is lost, the baseline is the call's.
func (w *waiter) arm(ctx context.Context) (string, error) {
	pn, err := readPane(ctx, w.srv, w.pane)
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
	w.res.Since = sinceSend
	if err != nil || outcome != "" {
		return outcome, err
	}
	// What the read found on the screen and did not count is older.
	for _, lp := range w.patterns {
		if len(matching(lp, w.screen)) > 0 {
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
	w.res.Since = sinceCall
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
		if len(matching(lp, visible)) > 0 {
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
		s, after, err := w.split(ctx, pn, -min(pn.HistorySize, anchorRows), false)
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
	pn, err := readPane(ctx, w.srv, w.pane)
	var te *toolError
	if errors.As(err, &te) && te.class == "pane_not_found" {
		return pn, &toolError{msg: fmt.Sprintf("Pane not found: %s (it went away during the wait)", w.pane),
			class: "pane_not_found", hint: hintPanes}
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
		return &toolError{msg: fmt.Sprintf("Pane not found: %s (it went away during the wait)", w.pane),
			class: "pane_not_found", hint: hintPanes}
	case pn.Dead:
		return w.died()
	case w.base.PID != 0 && pn.PID != w.base.PID:
		return &toolError{msg: fmt.Sprintf("pane %s was respawned (pid %d -> %d); cursor/baseline anchor is no longer valid",
			w.pane, w.base.PID, pn.PID), class: "pane_respawned"}
	}
	return nil
}

// check reads the pane once and returns the outcome if the wait is over;
// changed says a change event woke it.
func (w *waiter) check(ctx context.Context, changed bool) (string, error) {
	// Woken by output, the state read with the last capture stands for
	// the pane's state before this one: it was read before the capture,
	// which is all the reading of the rows needs (histanchor.go reasons
	// about a capture made between two reads of the pane), and the state
	// read with the capture tells what changed since. The capture starts
	// a screen higher, for the lines that scrolled meanwhile. That saves
	// the round trip of a state read of its own; the shape changing
	// (a resize, the alternate screen, a new history limit) sends the
	// check back to reading the state first.
	w.stale = changed && w.prev.ID != ""
	var pn tmux.Pane
	if w.stale {
		pn = w.prev
	} else {
		var err error
		if pn, err = w.state(ctx); err != nil {
			return "", err
		}
	}
	outcome, err := w.checkFrom(ctx, pn, changed)
	if errors.Is(err, errShapeChanged) {
		w.stale, w.prev = false, tmux.Pane{}
		if pn, err = w.state(ctx); err != nil {
			return "", err
		}
		return w.checkFrom(ctx, pn, changed)
	}
	return outcome, err
}

// errShapeChanged: the state read with a capture made from a stale state
// shows that the pane changed shape since; nothing was read from it.
var errShapeChanged = errors.New("tools: the pane changed shape since its last read")

// checkFrom is check from the pane's state pn, read before the capture.
func (w *waiter) checkFrom(ctx context.Context, pn tmux.Pane, changed bool) (string, error) {
	var err error
	var rows []string
	after := pn // the state read with the capture, if any
	w.last = readPos{}
	switch row, settled := w.anchor.settled(pn); {
	case pn.AlternateOn:
		// A full-screen program's screen: no history to anchor in.
		rows, after, err = w.read(ctx, 0, changed)
	case settled && pn.HistoryLimit == 0:
		// No history: rows that scroll off are gone, and so is any row to
		// find the anchor by.
		if top := row + w.skip; top < pn.Height {
			rows, after, err = w.read(ctx, top, changed)
		}
	default:
		rows, after, err = w.follow(ctx, pn, changed)
	}
	if err != nil {
		return "", err
	}
	w.rows = rows
	var fresh []int // indices in rows
	for i, r := range rows {
		if r != "" && !w.entry[r] {
			fresh = append(fresh, i)
		}
	}
	if len(fresh) == 0 {
		return "", nil
	}
	w.res.SawNewOutput = true
	if !pn.AlternateOn {
		// The capture came after the state was read: make sure the new
		// lines are not the alternate screen that came in between (the
		// state read right after the capture says).
		pn = after
	}
	if pn.AlternateOn {
		// A full-screen program: its screen is not a stream of lines.
		w.res.AlternateScreen = true
		return "", nil
	}
	// stop wins a tie with patterns.
	for i, lp := range w.stop {
		if m := w.matchFresh(lp, rows, fresh); len(m) > 0 {
			w.res.MatchedIndex, w.res.MatchedLines = &i, m
			return "stopped", nil
		}
	}
	if w.patterns == nil {
		for _, k := range fresh {
			w.res.MatchedLines = append(w.res.MatchedLines, rows[k])
		}
		w.hit = fresh[len(fresh)-1]
		return "any_output", nil
	}
	for i, lp := range w.patterns {
		if m := w.matchFresh(lp, rows, fresh); len(m) > 0 {
			w.res.MatchedIndex, w.res.MatchedLines = &i, m
			return "matched", nil
		}
	}
	return "", nil
}

// matchFresh returns the lines among rows[fresh] that lp matches, and
// notes the last one's index in w.hit.
func (w *waiter) matchFresh(lp linePattern, rows []string, fresh []int) []string {
	var out []string
	for _, k := range fresh {
		if lp.match(rows[k]) {
			out = append(out, rows[k])
			w.hit = k
		}
	}
	return out
}

func (w *waiter) died() error {
	return &toolError{msg: fmt.Sprintf("pane %s died; cursor/baseline anchor is no longer valid", w.pane), class: "pane_dead"}
}

// finish fills in the result for outcome. A wait that matched moves the
// pane's mark to just after its match (see sendMark).
func (w *waiter) finish(feed *changeFeed, outcome string) waitResult {
	if outcome == "timeout" && w.res.AlternateScreen {
		outcome = "alternate_screen"
	}
	r := w.res
	r.Outcome = outcome
	r.Found = outcome == "matched" || outcome == "any_output"
	r.MatchedAtEntry = r.MatchedAtEntry && !r.Found
	r.MatchedLines, _, _ = capture.CapTail(append([]string{}, r.MatchedLines...), waitTailLines, waitTailBytes)
	r.Tail, _, _ = capture.CapTail(trimRows(append(append([]string{}, w.past...), w.rows...)), waitTailLines, waitTailBytes)
	r.Detection = feed.mode()
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

// matching returns the lines lp matches.
func matching(lp linePattern, lines []string) []string {
	var out []string
	for _, l := range lines {
		if lp.match(l) {
			out = append(out, l)
		}
	}
	return out
}
