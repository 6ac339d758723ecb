package drive

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// awaitTaken waits until the screen has changed from before and then
// stayed the same for submitSettle: the program has read the paste and
// drawn it. It returns that screen.
func (s *Submission) awaitTaken(ctx context.Context, before screen) (screen, error) {
	last := before
	changedAt := time.Time{}
	err := WatchUntil(ctx, s.Srv, s.Pane.ID, s.Deadline, func() (bool, error) {
		now, err := screenNow(ctx, s.Srv, s.Pane.ID)
		if err != nil {
			return false, err
		}
		if !now.same(last) {
			last, changedAt = now, time.Now()
			return false, nil
		}
		return !changedAt.IsZero() && time.Since(changedAt) >= submitSettle, nil
	})
	if err != nil {
		if changedAt.IsZero() {
			return last, s.Failure(ctx, "the program did not show the text (the screen did not change after the paste)", err)
		}
		return last, s.Failure(ctx, "the program kept redrawing after the paste; Enter was not pressed", err)
	}
	return last, nil
}

// awaitTakenBack waits, after a Backspace meant to take back a new line
// the program typed for an Enter, until the input area is again as the
// paste left it (paste: its reading then) and the screen has stayed so
// for submitSettle. It waits for that reading, not for any settled
// screen: a program starved of CPU redraws late and in parts (seen with
// Gemini CLI beside busy loops: a screen quiet for 150 ms still showed
// the new line, the Backspace not yet read), and an Enter pressed then
// would be typed into the wrong input.
func (s *Submission) awaitTakenBack(ctx context.Context, paste agent.Reading) (screen, error) {
	var last screen
	backAt := time.Time{}
	err := WatchUntil(ctx, s.Srv, s.Pane.ID, s.Deadline, func() (bool, error) {
		now, err := screenNow(ctx, s.Srv, s.Pane.ID)
		if err != nil {
			return false, err
		}
		if !now.same(last) {
			last, backAt = now, time.Time{}
			r := agent.Read(s.Agent, now.lines())
			if r.InputKnown && r.Input == paste.Input && r.InputRows == paste.InputRows {
				backAt = time.Now()
			}
			return false, nil
		}
		return !backAt.IsZero() && time.Since(backAt) >= submitSettle, nil
	})
	if err != nil {
		return last, s.Failure(ctx, "the program took Enter as a new line, and taking it back did not leave its input area as the paste did; Enter was not pressed again", err)
	}
	return last, nil
}

// enterOutcome is what came of an Enter pressed after the paste.
type enterOutcome int

const (
	// enterSubmitted: the program took the text as submitted.
	enterSubmitted enterOutcome = iota
	// enterNewline: an agent CLI took Enter as a new line in its input.
	enterNewline
	// enterUnanswered: an agent CLI's input area stayed as the paste left
	// it for unansweredAfter, and it neither works nor asks.
	enterUnanswered
)

// unansweredAfter is how long an agent CLI's input area may stay as the
// paste left it after an Enter before the Enter counts as not taken. A
// program that takes a key draws its answer (the input cleared, a new
// line, a spinner) within milliseconds; this leaves a starved one time
// to catch up, and an Enter pressed again after a late one is harmless.
const unansweredAfter = 2 * time.Second

// awaitSubmitted waits until the screen shows that Enter submitted the
// text: for a known agent CLI, its input area no longer holds what the
// paste put there, or it works or asks; for another program, the cursor
// left the line it was on (a shell or REPL ran it), or, full-screen, the
// line no longer holds the text. It reports too whether an agent CLI took
// Enter as a new line instead (its input box grew by an empty row), or
// did not answer it at all.
func (s *Submission) awaitSubmitted(ctx context.Context, taken screen) (screen, enterOutcome, error) {
	var takenInput, takenPrompt string
	inputKnown := false
	takenRows := 0
	if s.Agent != "" {
		r := agent.Read(s.Agent, taken.lines())
		takenInput, inputKnown, takenRows, takenPrompt = r.Input, r.InputKnown, r.InputRows, r.Prompt
	}
	outcome := enterSubmitted
	tail := lastLineTail(s.Text)
	pressed := time.Now()
	var now screen
	err := WatchUntil(ctx, s.Srv, s.Pane.ID, s.Deadline, func() (bool, error) {
		var err error
		if now, err = screenNow(ctx, s.Srv, s.Pane.ID); err != nil {
			return false, err
		}
		agentRules := s.Agent != "" && inputKnown
		if now.same(taken) && !agentRules {
			return false, nil
		}
		if agentRules {
			r := agent.Read(s.Agent, now.lines())
			switch {
			case r.State == agent.Working || r.State == agent.AskingPermission:
				return true, nil
			case r.InputKnown && r.Input != takenInput && (takenInput == "" || !strings.Contains(r.Input, takenInput)):
				// Cleared; taken once the transcript shows it too (a
				// starved Gemini CLI clears its input a second or more
				// before it draws the prompt or works).
				return s.inTranscript(r, takenPrompt), nil
			case takenRows > 0 && r.InputKnown && r.Input == takenInput && r.InputRows == takenRows+1 && r.InputLastBlank:
				// The input box grew by an empty row: Enter became a new line.
				outcome = enterNewline
				return true, nil
			case r.InputKnown && r.Input == takenInput && r.InputRows == takenRows && time.Since(pressed) >= unansweredAfter:
				outcome = enterUnanswered
				return true, nil
			}
			return false, nil
		}
		if now.line != taken.line && !now.alt {
			return true, nil
		}
		return !strings.Contains(now.cursorLine(taken.cursorY), tail), nil
	})
	if err != nil {
		return now, enterSubmitted, s.Failure(ctx, "Enter was pressed but the program did not take the text as submitted", err)
	}
	return now, outcome, nil
}

// lastLineTail returns the end of text's last line, at most 16
// characters: what stays in an input line once it is typed.
func lastLineTail(text string) string {
	last := text[strings.LastIndexByte(text, '\n')+1:]
	last = strings.TrimSpace(last)
	r := []rune(last)
	if len(r) > 16 {
		r = r[len(r)-16:]
	}
	return string(r)
}

// unknownSettle is how long an agent CLI's screen that its rules do not
// explain must stay the same before submit_prompt takes it for what it
// is (a dialog, another version) rather than a redraw under way.
const unknownSettle = time.Second

// AgentReader reads which agent CLI pane pn runs and what its screen
// says; ok is false when it runs none.
type AgentReader func(ctx context.Context, pn tmux.Pane) (r agent.Reading, ok bool, err error)

// AwaitReadable waits, for an agent CLI whose screen its rules do not
// explain, until they do, the pane runs no agent any more, or the screen
// has stayed the same for unknownSettle and is not blank: a program
// redrawing (after a resize, a split beside it; Codex clears its screen
// first, and beside busy loops the clear can stay up a while) reads
// unknown for a moment, a dialog for good. It returns the last reading;
// ok is read's last answer.
func AwaitReadable(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, deadline time.Time, read AgentReader) (r agent.Reading, ok bool, err error) {
	var last []byte
	since := time.Now()
	err = WatchUntil(ctx, srv, pane, deadline, func() (bool, error) {
		pn, err := ReadPane(ctx, srv, pane)
		if err != nil {
			return false, err
		}
		c, err := srv.Capture(ctx, supervisor.CaptureRequest{Pane: pane})
		if err != nil {
			return false, err
		}
		if r, ok, err = read(ctx, pn); err != nil || !ok {
			return true, err
		}
		if r.State != agent.Unknown {
			return true, nil
		}
		screen := bytes.TrimRight(c.Content, "\n")
		if !bytes.Equal(screen, last) {
			last, since = screen, time.Now()
			return false, nil
		}
		return len(bytes.TrimSpace(screen)) > 0 && time.Since(since) >= unknownSettle, nil
	})
	if errors.Is(err, ErrWaitOver) {
		err = nil // the last reading stands: unknown
	}
	return r, ok, err
}
