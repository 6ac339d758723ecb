package drive

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// sendMark is where a pane's output stood just before this process last
// typed or pasted into it (send_keys, send_keys_batch, paste_text,
// paste_buffer, run_command), so that a wait after the send sees output
// that came before the wait began: a REPL answers in milliseconds, an
// agent calls wait_for_text seconds later. It is an anchor as a wait takes
// one (see screenAnchor: found again after tmux freed history lines, never
// by raw row numbers), with the cursor's row: the line the cursor was on
// (the prompt, then the echo of the keys) is the send's own and not new,
// and the lines after it are.
//
// A wait that matches moves the mark to just after its match, as expect
// consumes what it matched: the next wait sees only what came later. Every
// send replaces the mark or forgets it before the keys go, so a mark
// never covers a send it did not see.
type sendMark struct {
	seq    uint64
	pid    int // the pane's process: a respawned pane is not the one marked
	anchor screenAnchor
	// skip is the rows from the anchor down to the first that may be new.
	skip int
	// cut: the line holding row skip is the send's own (the prompt and
	// the keys' echo), and not new.
	cut bool
	// echo is how many lines after the cut one are the send's own too: a
	// run_command's command shows as many lines as it has (see
	// run.script).
	echo int
	// entry holds the lines that were on the screen below the cursor's
	// line at the send (stale paint): such a line is not new.
	entry map[string]bool
}

// maxMarks bounds the marks kept; past it, one is forgotten (its pane's
// next wait counts from its own call).
const maxMarks = 1024

// setMark records m as key's mark and returns its sequence number.
func (io *Panes) setMark(key PaneKey, m sendMark) uint64 {
	io.mu.Lock()
	defer io.mu.Unlock()
	if _, ok := io.marks[key]; !ok && len(io.marks) >= maxMarks {
		for k := range io.marks {
			delete(io.marks, k)
			break
		}
	}
	io.markSeq++
	m.seq = io.markSeq
	io.marks[key] = m
	return m.seq
}

// forgetMark drops key's mark; with seq > 0 only if it is still that mark.
func (io *Panes) forgetMark(key PaneKey, seq uint64) {
	io.mu.Lock()
	defer io.mu.Unlock()
	if m, ok := io.marks[key]; ok && (seq == 0 || m.seq == seq) {
		delete(io.marks, key)
	}
}

// mark returns key's mark.
func (io *Panes) mark(key PaneKey) (sendMark, bool) {
	io.mu.Lock()
	defer io.mu.Unlock()
	m, ok := io.marks[key]
	return m, ok
}

// advanceMark replaces key's mark by m if it is still mark seq: a send
// made since keeps its own.
func (io *Panes) advanceMark(key PaneKey, seq uint64, m sendMark) {
	io.mu.Lock()
	defer io.mu.Unlock()
	if cur, ok := io.marks[key]; ok && cur.seq == seq {
		io.markSeq++
		m.seq = io.markSeq
		io.marks[key] = m
	}
}

// MarkSend records where pn's output stands, just before keys are sent
// to it; pn is its state as last read. If the mark cannot be taken
// exactly (the pane is dead, on the alternate screen, keeps no history,
// keeps scrolling, or a read failed) the pane's mark is forgotten
// instead: its next wait counts from its own call. Failing here never
// stops the send. (run_command takes the mark from the capture its run
// anchors by: see keepMark.)
func (io *Panes) MarkSend(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, ceiling Ceiling) {
	m, ok := takeSendMark(ctx, srv, pn, ceiling)
	io.keepMark(srv, pn.ID, m, ok)
}

// keepMark records m as pane's mark, or forgets the pane's mark if m
// could not be taken.
func (io *Panes) keepMark(srv *supervisor.Server, pane tmux.PaneID, m sendMark, ok bool) {
	key := PaneKey{srv.Socket(), pane}
	if !ok {
		io.forgetMark(key, 0)
		return
	}
	io.setMark(key, m)
}

// ForgetSend drops pane's mark: keys go to it that no mark covers (all
// but the last send of a batch to one pane).
func (io *Panes) ForgetSend(srv *supervisor.Server, pane tmux.PaneID) {
	io.forgetMark(PaneKey{srv.Socket(), pane}, 0)
}

// takeSendMark anchors at pn's screen as a wait does at its call (see
// waiter.takeAnchor), and notes the cursor's row and the lines below it.
func takeSendMark(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, ceiling Ceiling) (sendMark, bool) {
	if pn.Dead || pn.AlternateOn || pn.HistoryLimit == 0 {
		// Without history the anchor's row is arithmetic only, and rows
		// that scroll off are gone: no mark to trust.
		return sendMark{}, false
	}
	w := &waiter{srv: srv, pane: pn.ID, baseline: baseline{base: pn}, question: question{ceiling: ceiling}}
	s, pn, settled, err := w.takeAnchor(ctx, pn)
	if err != nil || !settled {
		return sendMark{}, false
	}
	return sendMarkFrom(w, s, pn)
}

// sendMarkFrom is the mark of an anchor w took with the capture s of pn.
func sendMarkFrom(w *waiter, s splitRows, pn tmux.Pane) (sendMark, bool) {
	if w.anchor.slack > 0 || pn.Dead || pn.AlternateOn || pn.HistoryLimit == 0 {
		return sendMark{}, false
	}
	first := max(len(s.rows)-pn.Height, 0)
	entry := map[string]bool{}
	for _, l := range s.from(s.nextLine(first + w.skip)) {
		if l != "" {
			entry[l] = true
		}
	}
	return sendMark{pid: pn.PID, anchor: w.anchor, skip: w.skip, cut: true, entry: entry}, true
}
