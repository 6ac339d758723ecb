package drive

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Submission is one prompt submitted to an interactive program in a pane
// (submit_prompt): the text pasted as one input, Enter pressed once the
// program has taken it, and the program seen to take it as submitted.
// Whether the pane may be typed into, and whether the agent CLI in it is
// ready for a prompt, is the caller's to decide first.
type Submission struct {
	Srv  *supervisor.Server
	Pane tmux.Pane
	Text string
	// Agent is the agent CLI in the pane, "" for another program.
	Agent agent.Name
	// Start is when the call began; Deadline (Start + Timeout) ends the
	// waits for the program.
	Start    time.Time
	Timeout  time.Duration
	Deadline time.Time
	// Panes and Ceiling record where the pane's output stood before the
	// paste (Panes.MarkSend); Panes nil records nothing.
	Panes   *Panes
	Ceiling Ceiling
}

// Submitted is what came of a Submission.
type Submitted struct {
	// Bracketed is whether the program asked for bracketed paste; nil when
	// tmux cannot tell (before 3.7).
	Bracketed *bool
	// Taken is the time from Start to the text taken (the screen settled
	// after the paste), Done to the submission seen.
	Taken, Done time.Duration
	// Enters is how many times Enter was pressed (more than once when the
	// program took one as a new line, or did not answer one).
	Enters int
	// After is the agent CLI's reading once the prompt was submitted; the
	// zero Reading for another program.
	After agent.Reading
}

// NotSubmittedError: a submission did not go through. Msg says what went
// wrong, within what time, and shows the screen as it was then.
type NotSubmittedError struct{ Msg string }

func (e *NotSubmittedError) Error() string { return e.Msg }

// submitSettle is how long a pane's screen must stay unchanged after a
// paste before the program counts as having taken it: agent CLIs read a
// paste in pieces and redraw their input box once it is whole, and an
// Enter that arrives before then is taken for part of the paste (a
// newline) or lost.
const submitSettle = 150 * time.Millisecond

// maxEnters bounds the Enters pressed when the program takes them as new
// lines in the paste.
const maxEnters = 3

// Run submits s.Text.
func (s *Submission) Run(ctx context.Context) (Submitted, error) {
	id := s.Pane.ID
	// A program that asked for bracketed paste takes a multi-line text as
	// one input; one that did not (python3's REPL turns it off) reads it
	// line by line, as if typed, which is how such a program takes
	// several lines (a REPL continues the statement). The result says which.
	out := Submitted{Bracketed: BracketPaste(ctx, s.Srv, id)}
	before, err := screenNow(ctx, s.Srv, id)
	if err != nil {
		return out, err
	}
	if s.Panes != nil {
		s.Panes.MarkSend(ctx, s.Srv, s.Pane, s.Ceiling)
	}
	if err := Paste(ctx, s.Srv, id, s.Text, true); err != nil {
		return out, err
	}
	taken, err := s.awaitTaken(ctx, before)
	if err != nil {
		return out, err
	}
	out.Taken = time.Since(s.Start)
	var takenRead agent.Reading
	if s.Agent != "" {
		takenRead = agent.Read(s.Agent, taken.lines())
	}
	var after screen
	for {
		if err := s.Srv.TypeKeys(ctx, id, "Enter"); err != nil {
			return out, err
		}
		out.Enters++
		var took enterOutcome
		if after, took, err = s.awaitSubmitted(ctx, taken); err != nil {
			return out, err
		}
		if took == enterSubmitted {
			break
		}
		if took == enterUnanswered {
			// Nothing came of the Enter: the input area still holds the
			// paste as it was, and the program neither works nor asks.
			// Seen with Gemini CLI on its first prompt beside busy loops
			// (the key was read while no input handler was mounted).
			// Another Enter is safe: one still on its way submits, and
			// the later one finds an empty input, which agent CLIs ignore.
			if out.Enters == maxEnters {
				return out, s.Failure(ctx, fmt.Sprintf("Enter was pressed %d times and the program took none of them; the prompt is in its input area, not submitted", out.Enters), nil)
			}
			continue
		}
		// The program took Enter for a new line in the paste: Gemini CLI
		// does for 40 ms after a paste by its own clock, which a busy
		// machine stretches while the screen is long quiet. Take the new
		// line back and press Enter again once the screen settles.
		if out.Enters == maxEnters {
			return out, s.Failure(ctx, fmt.Sprintf("the program took Enter as a new line %d times; the prompt is in its input area, not submitted", out.Enters), nil)
		}
		if err := s.Srv.TypeKeys(ctx, id, "BSpace"); err != nil {
			return out, err
		}
		if taken, err = s.awaitTakenBack(ctx, takenRead); err != nil {
			return out, err
		}
	}
	out.Done = time.Since(s.Start)
	if s.Agent != "" {
		out.After = agent.Read(s.Agent, after.lines())
	}
	return out, nil
}

// BracketPaste reports whether the program in pane asked for bracketed
// paste (#{bracket_paste_flag}); nil when tmux does not say (before 3.7).
func BracketPaste(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID) *bool {
	v, err := srv.DisplayMessage(ctx, pane, "#{bracket_paste_flag}")
	if err != nil || (v != "0" && v != "1") {
		return nil
	}
	on := v == "1"
	return &on
}

// Failure is the error of a submission that did not go through: what
// went wrong, and the screen as it is now, so that the caller sees it.
func (s *Submission) Failure(ctx context.Context, what string, cause error) error {
	msg := fmt.Sprintf("prompt not submitted to pane %s: %s", s.Pane.ID, what)
	if errors.Is(cause, ErrWaitOver) || PastDeadline(cause, s.Deadline) {
		msg += fmt.Sprintf(" within %s", s.Timeout)
	} else if cause != nil {
		msg += ": " + cause.Error()
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if c, err := s.Srv.Capture(rctx, supervisor.CaptureRequest{Pane: s.Pane.ID}); err == nil {
		msg += "\nThe screen now:\n" + strings.TrimRight(string(c.Content), "\n ")
	}
	return &NotSubmittedError{Msg: msg}
}
