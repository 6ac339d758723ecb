package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/taskext"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Shared parameters of the tools that wait.
var (
	pTimeout  = mcp.WithNumber("timeout")
	pMaxLines = mcp.WithInteger("max_lines")
)

// runResult is run_command's result.
type runResult struct {
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
	// prompted: something (the shell's prompt) shows after the end.
	prompted bool
}

var runSchema = record(tField, []string{"pane_id", "timed_out", "elapsed_seconds", "output", "output_truncated",
	"output_truncated_lines", "effective_timeout", "ready_timed_out", "history_overflowed"},
	map[string]any{"exit_status": tIntNull})

// RunCommand runs a shell command in a pane and returns its exit status and
// output.
func RunCommand(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("run_command", "Run a command in a subshell at a pane's prompt; returns its exit status and output.",
		hintsShell, runSchema,
		paneTarget(mcp.WithString("command", mcp.Required()), pTimeout, pMaxLines, pSuppressHist, pIfSHA256,
			mcp.WithBoolean("background"), pAllowAttended)...)
	return t, withRequest(handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		start := time.Now()
		cmd := p.str("command")
		noHistory := p.flag("suppress_history", true)
		switch {
		case strings.TrimSpace(cmd) == "":
			return nil, &toolError{msg: "command must not be empty", class: "argument"}
		case noHistory && strings.ContainsAny(cmd, "\r\n"):
			return nil, &toolError{msg: "command must be a single line when suppress_history=True", class: "argument",
				hint: "Pass suppress_history=false for a multi-line command."}
		}
		if p.boolean("background") {
			return d.startJob(ctx, p, cmd, noHistory)
		}
		timeout, err := d.timeoutArg(p, 30)
		if err != nil {
			return nil, err
		}
		maxLines, err := positiveArg(p, "max_lines", d.Sup.Config().CaptureLines)
		if err != nil {
			return nil, err
		}
		tp, err := d.startTyping(ctx, p)
		if err != nil {
			return nil, err
		}
		defer tp.unlock()
		srv, pn, notReady := tp.srv, tp.pane, tp.notReady
		if err := jobError(d.jobs.CheckFree(srv.Socket(), pn.ID)); err != nil {
			return nil, err
		}
		r := d.newRun(srv, pn.ID)
		res, err := r.do(ctx, d.runs, d.tmuxPath(), cmd, noHistory, timeout)
		if err != nil {
			if ctx.Err() != nil && taskext.From(ctx).Task() != "" {
				// A task cancelled (tasks/cancel, stop_job): its command
				// stops too, as stop_job's first step would stop a job's.
				ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				_ = keystroke{keys: "C-c"}.send(ictx, srv, pn.ID)
				cancel()
			}
			return nil, err
		}
		if res.ExitStatus != nil && !res.prompted {
			// The prompt is late: the next call that types waits for it.
			if now, err := readPane(ctx, srv, pn.ID); err == nil && now.CursorX == 0 {
				d.panes.expectPrompt(srv.Socket(), now)
			}
		}
		res.Output, res.TruncatedLines = capture.TailLines(res.Output, maxLines, res.TruncatedLines)
		res.Truncated = res.TruncatedLines > 0 || res.Truncated
		res.PaneID = string(pn.ID)
		res.EffectiveTimeout = timeout.Seconds()
		res.ReadyTimedOut = notReady
		res.Elapsed = seconds(time.Since(start))
		return structured(res)
	}))
}

// timeoutArg returns the timeout argument (def seconds when absent),
// clamped to the ceiling.
func (d Deps) timeoutArg(p params, def float64) (time.Duration, error) {
	secs := def
	if v, ok := p.number("timeout"); ok {
		secs = v
	}
	if secs <= 0 {
		return 0, &toolError{msg: "timeout must be positive", class: "argument"}
	}
	return min(time.Duration(secs*float64(time.Second)), d.maxWait()), nil
}

// tmuxPath is the tmux binary as a shell in a pane can run it.
func (d Deps) tmuxPath() string {
	bin := d.Sup.Config().Binary
	if p, err := exec.LookPath(bin); err == nil {
		return p
	}
	return bin
}

// nonce returns 12 random hex digits.
func nonce() string {
	var b [6]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// run is one run_command.
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
type run struct {
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
}

// newRun prepares a run_command in pane, with a fresh nonce.
func (d Deps) newRun(srv *supervisor.Server, pane tmux.PaneID) *run {
	cfg := d.Sup.Config()
	return &run{srv: srv, pane: pane, nonce: nonce(), maxLines: cfg.MaxCaptureLines, maxBytes: cfg.MaxCaptureBytes, lines: 1,
		keepMark: func(m sendMark, ok bool) { d.keepMark(srv, pane, m, ok) }}
}

func (r *run) channel() string { return "tmux_mcp_run_" + r.nonce }

// promptGrace bounds the wait for the shell's prompt after the end.
// A run ends when the prompt shows: keys typed before it (the next
// run_command) would be echoed by the terminal and again by the shell,
// and the pane would show the line twice.
const promptGrace = time.Second

func (r *run) do(ctx context.Context, files *runFiles, tmuxBin, cmd string, noHistory bool, timeout time.Duration) (runResult, error) {
	base, err := r.send(ctx, files, tmuxBin, cmd, noHistory)
	if err != nil {
		return runResult{}, err
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
		return runResult{}, r.sentError(err)
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
func (r *run) send(ctx context.Context, files *runFiles, tmuxBin, cmd string, noHistory bool) (tmux.Pane, error) {
	base, err := readPane(ctx, r.srv, r.pane)
	if err != nil {
		return tmux.Pane{}, err
	}
	if base.Dead {
		return tmux.Pane{}, &toolError{msg: fmt.Sprintf("pane %s is dead; nothing was sent", r.pane), class: "pane_dead",
			hint: "Call respawn_pane, or target another pane."}
	}
	if sh := filepath.Base(strings.TrimPrefix(base.CurrentCommand, "-")); slices.Contains(nonPOSIXShells, sh) {
		return tmux.Pane{}, &toolError{msg: fmt.Sprintf("pane %s runs %s; run_command needs a POSIX shell at the prompt (sh, bash, zsh, ksh); nothing was sent", r.pane, sh),
			class: "unsupported_shell", hint: "Use send_keys and wait_for_text, or start sh or bash in the pane."}
	}
	r.anchor = paneAnchor(base)
	promptRow := ""
	var mark sendMark
	marked := false
	if !base.AlternateOn {
		w := &waiter{srv: r.srv, pane: r.pane, base: base, ceiling: captureCeiling{r.maxLines, r.maxBytes}}
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
	k := keystroke{keys: line, enter: true, literal: true}
	if err := k.send(ctx, r.srv, r.pane); err != nil {
		files.remove(r.file)
		return tmux.Pane{}, err
	}
	return base, nil
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
func (r *run) clearStale(ctx context.Context) {
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

// sentError is a failure to learn the result of a command that was sent:
// it may have run, and the caller must not take it for a command that did
// not run and send it again.
func (r *run) sentError(err error) error {
	te := asToolError(err)
	if te == nil {
		te = &toolError{msg: err.Error(), class: "result_unknown"}
	}
	return &toolError{msg: fmt.Sprintf("the command was sent to pane %s and may have run, but its result could not be read: %s", r.pane, te.msg),
		class: te.class, hint: "Do not run it again before reading the pane (capture_pane, capture_since)."}
}

// await waits for the command sent at base to end (or the timeout) and
// reads its result. A channel signalled without an end recorded (a wait
// of an earlier tmux-mcp that tmux kept) gives a result without an exit
// status.
func (r *run) await(ctx context.Context, base tmux.Pane, timeout time.Duration) (runResult, error) {
	prog := startProgress(ctx, requestOf(ctx), timeout, "running a command in pane "+string(r.pane))
	deadline := time.Now().Add(timeout)
	wctx, cancel := context.WithDeadline(ctx, deadline)
	err := r.srv.WaitForChannel(wctx, r.channel())
	cancel()
	prog.stop()
	switch {
	case ctx.Err() != nil:
		return runResult{}, ctx.Err()
	case err != nil && (wctx.Err() != nil || pastDeadline(err, deadline)):
		res, err := r.collect(ctx, base, nil)
		res.TimedOut = true
		return res, err
	case err != nil:
		return runResult{}, err
	}
	end, err := r.readEnd(ctx)
	if err != nil || end == nil {
		return runResult{}, err
	}
	// Read the output once the prompt shows after the end: once the
	// cursor left the end (the shell printing its prompt moves it), each
	// time the pane changes, or when the wait for it is over.
	feed := watchPane(ctx, r.srv, r.pane, minPoll)
	defer feed.close()
	wait := time.NewTimer(promptGrace)
	defer wait.Stop()
	for {
		now, err := readPane(ctx, r.srv, r.pane)
		if err != nil {
			return runResult{}, err
		}
		if row, ok := end.row(now); !ok || now.CursorY != row || now.CursorX != end.cx {
			res, err := r.collect(ctx, base, end)
			if err != nil || res.prompted {
				return res, err
			}
		}
		select {
		case <-ctx.Done():
			return runResult{}, ctx.Err()
		case <-wait.C:
			return r.collect(ctx, base, end)
		case _, ok := <-feed.C:
			if !ok {
				feed.reopen(ctx)
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
