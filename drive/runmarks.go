package drive

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/supervisor/marks"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// A run in a pane whose shell marks its commands (OSC 133, package marks)
// types only the command, as a person would, and reads its end from the
// marks: the status from the D mark, and where the output ends from what
// the pane printed after it (the prompt), reckoned back from the cursor.

// shells are the programs, by the name tmux gives a pane's current
// command, whose prompt a run may take the marks of.
var shells = append([]string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "yash", "ash", "busybox"}, nonPOSIXShells...)

// shellOf returns the name of the shell in the foreground of pn, or "".
func shellOf(pn tmux.Pane) string {
	sh := filepath.Base(strings.TrimPrefix(pn.CurrentCommand, "-"))
	if !slices.Contains(shells, sh) {
		return ""
	}
	return sh
}

// marked returns the pane's marks and the pane when the run can type only
// the command: cmd is one line of text, the marks say, surely, that the
// shell sits at its prompt (not in copy mode or another screen), and a
// shell is in the pane's foreground (marks are output: a program that
// printed a prompt's marks is not a shell at its prompt).
func (r *Run) marked(ctx context.Context, cmd string) (marks.Read, tmux.Pane, bool) {
	if strings.ContainsFunc(cmd, isControl) {
		return marks.Read{}, tmux.Pane{}, false
	}
	m, err := r.srv.PaneMarks(ctx, r.pane)
	st := m.State
	if err != nil || !m.Known || !st.Marked || !st.AtPrompt || st.Running || st.Unsure {
		return marks.Read{}, tmux.Pane{}, false
	}
	base, err := ReadPane(ctx, r.srv, r.pane)
	if err != nil || base.Dead || base.InMode || base.AlternateOn || shellOf(base) == "" {
		return marks.Read{}, tmux.Pane{}, false
	}
	// The shell at its prompt reads its terminal; the end is its own when
	// this process reads it again.
	r.shell = 0
	if fg, awaits, known := proc.Foreground(base.PID); known {
		if !awaits {
			return marks.Read{}, tmux.Pane{}, false
		}
		r.shell = fg
	}
	return m, base, true
}

// doMarked types cmd at the prompt of a pane whose marks m0 were read
// before base, and waits up to timeout for the command's end. sent says
// whether the keys went.
func (r *Run) doMarked(ctx context.Context, m0 marks.Read, base tmux.Pane, cmd string, noHistory bool,
	timeout time.Duration) (res RunResult, sent bool, err error) {
	base, promptRow, mark, marked := r.anchorAt(ctx, base)
	if noHistory {
		// As a person keeps a line out of the history: bash
		// (HISTCONTROL=ignorespace), zsh (HIST_IGNORE_SPACE) and fish.
		cmd = " " + cmd
	}
	r.lines = 1
	r.mark.head = rowHead(promptRow, base.CursorX, cmd, base.Width)
	if r.keepMark != nil {
		r.keepMark(mark, marked)
	}
	feed := WatchPane(ctx, r.srv, r.pane, MinPoll)
	defer feed.Close()
	if err := (Keystroke{Keys: cmd, Enter: true, Literal: true}).Send(ctx, r.srv, r.pane); err != nil {
		return RunResult{}, false, err
	}
	stop := r.Progress.start(ctx, timeout, "running a command in pane "+string(r.pane))
	defer stop()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	// A shell that marked where its prompt ended (B) is at its prompt once
	// it marks that again.
	atPrompt := func(st marks.State) bool {
		return st.AtPrompt && (m0.State.LastKind != marks.CommandStart || st.LastKind == marks.CommandStart)
	}
	var recheck <-chan time.Time
	back := time.Millisecond // the next recheck's wait, doubled up to MinPoll
	for {
		m, err := r.srv.PaneMarks(ctx, r.pane)
		if err != nil {
			return RunResult{}, true, err
		}
		recheck = nil
		if st := m.State; st.Ends > m0.State.Ends && !st.Running && atPrompt(st) {
			ended, err := r.shellBack(ctx, base, m)
			if err != nil {
				return RunResult{}, true, err
			}
			if ended {
				res, err := r.endMarked(ctx, base, m)
				return res, true, err
			}
			// The shell has not yet come back to read its terminal (or a
			// command forged the end): no output need tell when it does.
			recheck = time.After(back)
			back = min(2*back, MinPoll)
		}
		select {
		case <-ctx.Done():
			return RunResult{}, true, ctx.Err()
		case <-timer.C:
			res, err := r.collect(ctx, base, nil)
			res.TimedOut = true
			return res, true, err
		case <-recheck:
		case _, ok := <-feed.C:
			if !ok {
				feed.Reopen(ctx)
			}
		}
	}
}

// shellBack tells whether the end the marks m show is the shell's: marks
// are output, and a command can print an end and a prompt of its own.
// It is when the process that read the terminal at the prompt before the
// command (r.shell) is the pane's foreground process again, blocked
// reading it (proc.Foreground: not waiting for a child, not running a
// builtin; a child it forked is another process), and the pane printed
// nothing since m. Where that cannot be read (macOS), the shell must stay
// in the foreground, printing nothing, across two reads. What is left: a
// command line whose own builtins print an end and a prompt and then read
// the terminal (bash's read), or, where the process cannot be read, stay
// busy silently past the reads.
func (r *Run) shellBack(ctx context.Context, base tmux.Pane, m marks.Read) (bool, error) {
	for try := 0; try < 2; try++ {
		now, err := ReadPane(ctx, r.srv, r.pane)
		if err != nil || now.CurrentCommand != base.CurrentCommand {
			return false, err
		}
		if r.shell != 0 {
			fg, awaits, _ := proc.Foreground(now.PID)
			if fg != r.shell || !awaits {
				return false, nil
			}
		}
		again, err := r.srv.PaneMarks(ctx, r.pane)
		if err != nil || again.State.Bytes != m.State.Bytes {
			return false, err
		}
		if r.shell != 0 {
			return true, nil
		}
	}
	return true, nil
}

// endMarked reads the result of the command that ended with the marks m:
// the output from the lines after the prompt's row to the end, which is
// as many rows above the cursor as the tail (what the pane printed after
// the D mark) reckons, at the column it gives. A reckoning that does not
// put the cursor where tmux has it (the prompt moved the cursor in ways
// the tail cannot follow, or the pane printed between the reads) is tried
// again; at the last try the output ends at the start of the cursor's row.
func (r *Run) endMarked(ctx context.Context, base tmux.Pane, m marks.Read) (RunResult, error) {
	var end runEnd
	for try := 1; ; try++ {
		now, err := ReadPane(ctx, r.srv, r.pane)
		if err != nil {
			return RunResult{}, err
		}
		after, err := r.srv.PaneMarks(ctx, r.pane)
		if err != nil {
			return RunResult{}, err
		}
		end = runEnd{status: after.State.EndStatus, hsize: now.HistorySize, cy: now.CursorY, width: now.Width, height: now.Height}
		rows, endX, curX, ok := after.Tail.Reckon(now.Width)
		if ok && curX == now.CursorX && after.State.Bytes == m.State.Bytes {
			end.cy, end.cx = now.CursorY-rows, endX
			break
		}
		if try == stableTries {
			break
		}
		m = after
	}
	res, err := r.collect(ctx, base, &end)
	if err != nil {
		return RunResult{}, err
	}
	if end.status < 0 {
		res.ExitStatus = nil // the shell marked the end without a status
	}
	return res, nil
}
