package drive

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// RunResult is run_command's result.
type RunResult struct {
	PaneID           string   `json:"pane_id"`
	ExitStatus       *int     `json:"exit_status"`
	TimedOut         bool     `json:"timed_out"`
	Elapsed          float64  `json:"elapsed_seconds"`
	Output           []string `json:"output"`
	Truncated        bool     `json:"output_truncated"`
	TruncatedLines   int      `json:"output_truncated_lines"`
	EffectiveTimeout float64  `json:"effective_timeout"`
	ReadyTimedOut    bool     `json:"ready_timed_out"`
	// HistoryOverflowed: the start of the output was freed from the pane's
	// history (its history-limit) before it could be read; how many lines
	// is not known. output_truncated is set too.
	HistoryOverflowed bool `json:"history_overflowed"`
	// Prompted: something (the shell's prompt) shows after the end.
	Prompted bool `json:"-"`
}

// nonce returns 12 random hex digits.
func nonce() string {
	var b [6]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// Run is one run_command.
//
// The command runs in a subshell of the pane's shell, from a file of this
// run that a short line typed at the prompt sources (see runscript.go):
// the file shows the command in place of the line typed, runs it, and
// ends by recording its status and where its output ended in a pane
// option, and signalling a private wait-for channel. The output is what
// the pane shows between the command's lines (after the prompt the
// anchor taken before typing finds) and that end. The wait is exact and
// makes no capture while the command runs; the output is read once, from
// scrollback, at the end.
type Run struct {
	srv   *supervisor.Server
	pane  tmux.PaneID
	nonce string
	// maxLines and maxBytes are the most a capture may hold.
	maxLines, maxBytes int
	// file is the file the typed line sources, if any.
	file string
	// lines is how many lines the command shows as, the prompt's first:
	// the output begins after them.
	lines int
	// anchor is the top of the pane's screen before the line was typed;
	// the prompt was on the cursor's row of that screen, which mark finds
	// again after tmux freed history lines.
	anchor screenAnchor
	mark   promptMark
	// keepMark records the send's mark for the waits that follow (see
	// sendMark), from the capture the run anchors by, before the keys go.
	keepMark func(m sendMark, ok bool)
	// Progress, if set, reports the wait for the end.
	Progress Progress
	// shell is the process of the shell at the prompt the command was
	// typed at, where the marks are read (runmarks.go), 0 where not known.
	shell int
}

// NewRun prepares a run_command in pane, with a fresh nonce: its
// captures hold at most ceiling, and panes (if not nil) keeps the send's
// mark for the waits that follow.
func NewRun(srv *supervisor.Server, pane tmux.PaneID, ceiling Ceiling, panes *Panes) *Run {
	r := &Run{srv: srv, pane: pane, nonce: nonce(), maxLines: ceiling.Lines, maxBytes: ceiling.Bytes, lines: 1}
	if panes != nil {
		r.keepMark = func(m sendMark, ok bool) { panes.keepMark(srv, pane, m, ok) }
	}
	return r
}

func (r *Run) channel() string { return "tmux_mcp_run_" + r.nonce }

// promptGrace bounds the wait for the shell's prompt after the end.
// A run ends when the prompt shows: keys typed before it (the next
// run_command) would be echoed by the terminal and again by the shell,
// and the pane would show the line twice.
const promptGrace = time.Second

// Do types cmd at the pane's prompt (writing the file the line sources
// into files), waits up to timeout for its end and reads its result. An
// error once the line was sent is a SentError.
func (r *Run) Do(ctx context.Context, files *Files, tmuxBin, cmd string, noHistory bool, timeout time.Duration) (RunResult, error) {
	if m, base, ok := r.marked(ctx, cmd); ok {
		res, sent, err := r.doMarked(ctx, m, base, cmd, noHistory, timeout)
		if err != nil && sent && ctx.Err() == nil {
			return RunResult{}, &SentError{Pane: r.pane, Err: err}
		}
		return res, err
	}
	base, err := r.send(ctx, files, tmuxBin, cmd, noHistory)
	if err != nil {
		return RunResult{}, err
	}
	res, err := r.await(ctx, base, timeout)
	if err == nil && !res.TimedOut {
		// The shell has read the file: it signalled the channel.
		files.remove(r.file)
		r.clearEnd(ctx)
		if res.ExitStatus == nil {
			err = errors.New("the command's channel was signalled, but no end was recorded")
		}
	}
	if err != nil && ctx.Err() == nil {
		return RunResult{}, &SentError{Pane: r.pane, Err: err}
	}
	return res, err
}

// nonPOSIXShells are shells whose syntax is not sh's, by the name tmux
// gives a pane's current command: run_command's line would not run there.
var nonPOSIXShells = []string{"fish", "csh", "tcsh", "nu", "elvish", "xonsh", "pwsh", "ion", "rc", "es"}

// send types the command at the pane's prompt (writing the file it
// sources into files) and returns the pane as it was just before: the
// base that await and collect read the output from. It anchors at the
// pane's screen first (r.anchor), so that the prompt's row is found again
// even after tmux freed history lines.
func (r *Run) send(ctx context.Context, files *Files, tmuxBin, cmd string, noHistory bool) (tmux.Pane, error) {
	base, err := ReadPane(ctx, r.srv, r.pane)
	if err != nil {
		return tmux.Pane{}, err
	}
	if base.Dead {
		return tmux.Pane{}, &DeadError{Pane: r.pane, Unsent: true}
	}
	if sh := filepath.Base(strings.TrimPrefix(base.CurrentCommand, "-")); slices.Contains(nonPOSIXShells, sh) {
		return tmux.Pane{}, &ShellError{Pane: r.pane, Shell: sh}
	}
	base, promptRow, mark, marked := r.anchorAt(ctx, base)
	r.clearStale(ctx)
	line := r.script(files, tmuxBin, cmd, noHistory, base)
	// The prompt's row will show the prompt, then the command's first
	// line (or the line typed, where no file could be written).
	shown := line
	if r.file != "" {
		shown, _, _ = strings.Cut(display(cmd), "\n")
	}
	r.mark.head = rowHead(promptRow, base.CursorX, shown, base.Width)
	if r.keepMark != nil {
		mark.echo = r.lines - 1
		r.keepMark(mark, marked)
	}
	k := Keystroke{Keys: line, Enter: true, Literal: true}
	if err := k.Send(ctx, r.srv, r.pane); err != nil {
		files.remove(r.file)
		return tmux.Pane{}, err
	}
	return base, nil
}

// anchorAt anchors the run at the pane's screen (r.anchor, r.mark): the
// prompt's row is found again later even after tmux freed history lines.
// It returns the pane as anchored, the prompt's row, and the send's mark
// for the waits that follow (marked: one was taken).
func (r *Run) anchorAt(ctx context.Context, base tmux.Pane) (tmux.Pane, string, sendMark, bool) {
	r.anchor = paneAnchor(base)
	promptRow := ""
	var mark sendMark
	marked := false
	if !base.AlternateOn {
		w := &waiter{srv: r.srv, pane: r.pane, baseline: baseline{base: base}, question: question{ceiling: Ceiling{r.maxLines, r.maxBytes}}}
		if s, pn, settled, err := w.takeAnchor(ctx, base); err == nil && settled && w.anchor.slack == 0 {
			base = pn
			if base.HistoryLimit > 0 {
				// Without history the anchor's row is arithmetic only, and
				// rows that scroll off are gone: the mark finds the prompt.
				r.anchor = w.anchor
			}
			i := len(s.rows) - pn.Height + pn.CursorY
			r.mark = newPromptMark(s.rows, i, "")
			if i >= 0 && i < len(s.rows) {
				promptRow = s.rows[i]
			}
			mark, marked = sendMarkFrom(w, s, pn)
		}
	}
	return base, promptRow, mark, marked
}

// rowHead is the row that shows text after the first x cells of prompt
// (a row), cut at width cells, right-trimmed.
func rowHead(prompt string, x int, text string, width int) string {
	head := prompt[:cellOffset(prompt, x)]
	if c := utf8.RuneCountInString(head); c < x {
		head += strings.Repeat(" ", x-c)
	}
	head += text
	return strings.TrimRight(head[:cellOffset(head, width)], " ")
}

// clearStale removes the end options runs left on the pane that nobody
// read (a run that timed out and ended later); a pane has no running job
// when a run starts in it.
func (r *Run) clearStale(ctx context.Context) {
	names, err := r.srv.PaneOptionNames(ctx, r.pane)
	if err != nil {
		return
	}
	for _, name := range names {
		if strings.HasPrefix(name, "@tmux_mcp_") {
			r.srv.UnsetPaneOption(ctx, r.pane, name) //nolint:errcheck // best effort
		}
	}
}

// await waits for the command sent at base to end (or the timeout) and
// reads its result. A channel signalled without an end recorded (a wait
// of an earlier tmux-mcp that tmux kept) gives a result without an exit
// status.
func (r *Run) await(ctx context.Context, base tmux.Pane, timeout time.Duration) (RunResult, error) {
	stop := r.Progress.start(ctx, timeout, "running a command in pane "+string(r.pane))
	deadline := time.Now().Add(timeout)
	wctx, cancel := context.WithDeadline(ctx, deadline)
	err := r.srv.WaitForChannel(wctx, r.channel())
	cancel()
	stop()
	switch {
	case ctx.Err() != nil:
		return RunResult{}, ctx.Err()
	case err != nil && (wctx.Err() != nil || PastDeadline(err, deadline)):
		res, err := r.collect(ctx, base, nil)
		res.TimedOut = true
		return res, err
	case err != nil:
		return RunResult{}, err
	}
	end, err := r.readEnd(ctx)
	if err != nil || end == nil {
		return RunResult{}, err
	}
	// Read the output once the prompt shows after the end: once the
	// cursor left the end (the shell printing its prompt moves it), each
	// time the pane changes, or when the wait for it is over.
	feed := WatchPane(ctx, r.srv, r.pane, MinPoll)
	defer feed.Close()
	wait := time.NewTimer(promptGrace)
	defer wait.Stop()
	for {
		now, err := ReadPane(ctx, r.srv, r.pane)
		if err != nil {
			return RunResult{}, err
		}
		if row, ok := end.row(now); !ok || now.CursorY != row || now.CursorX != end.cx {
			res, err := r.collect(ctx, base, end)
			if err != nil || res.Prompted {
				return res, err
			}
		}
		select {
		case <-ctx.Done():
			return RunResult{}, ctx.Err()
		case <-wait.C:
			return r.collect(ctx, base, end)
		case _, ok := <-feed.C:
			if !ok {
				feed.Reopen(ctx)
			}
		}
	}
}

// cellOffset returns the byte offset in line of its cell x (the line's
// length if it is shorter).
func cellOffset(line string, x int) int {
	cells := 0
	for off, r := range line {
		if cells >= x {
			return off
		}
		cells += cellWidth(r)
	}
	return len(line)
}
