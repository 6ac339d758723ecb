package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// submitSettle is how long a pane's screen must stay unchanged after a
// paste before the program counts as having taken it: agent CLIs read a
// paste in pieces and redraw their input box once it is whole, and an
// Enter that arrives before then is taken for part of the paste (a
// newline) or lost.
const submitSettle = 150 * time.Millisecond

// maxEnters bounds the Enters pressed when the program takes them as new
// lines in the paste.
const maxEnters = 3

// submitSchema is submit_prompt's result.
var submitSchema = record(tField, []string{"result", "pane_id", "agent", "submitted_ms"}, nil)

// submitted is submit_prompt's result.
type submitted struct {
	Result string `json:"result"`
	PaneID string `json:"pane_id"`
	// Bracketed is whether the program asked for bracketed paste; nil when
	// tmux cannot tell (before 3.7).
	Bracketed *bool `json:"bracketed"`
	// Agent is the agent CLI the pane runs, as it was once the prompt was
	// submitted; nil for another program.
	Agent *AgentInfo `json:"agent"`
	// TakenMS is the time from the call to the text taken (the screen
	// settled after the paste), SubmittedMS to the submission seen.
	TakenMS     int64 `json:"taken_ms"`
	SubmittedMS int64 `json:"submitted_ms"`
	// Enters is how many times Enter was pressed (more than once when the
	// program took one as a new line).
	Enters int `json:"enters"`
}

// SubmitPrompt types text into an interactive program as one input,
// presses Enter once the program has taken it, and checks that the
// program took it as a submission.
func SubmitPrompt(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("submit_prompt",
		"Submit text as one prompt to an agent CLI, REPL or shell; checks it was.",
		hintsShell, submitSchema,
		paneTarget(mcp.WithString("text", mcp.Required()), pTimeout, pAllowAgent, pAllowAttended)...)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		start := time.Now()
		text := strings.TrimRight(p.str("text"), "\r\n")
		switch {
		case strings.TrimSpace(text) == "":
			return nil, argError("text", "must not be empty")
		case len(text) > maxPaste:
			return nil, argError("text", "at most %d bytes", maxPaste)
		}
		timeout, err := d.timeoutArg(p, 15)
		if err != nil {
			return nil, err
		}
		// The timeout bounds the steps of the submission (the pane's
		// lock and readiness, then the waits for the program); each
		// read and key has the time of a tmux call (waituntil.go).
		deadline := start.Add(timeout)
		wctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		tp, err := d.startTyping(wctx, p)
		if drive.PastDeadline(err, deadline) && ctx.Err() == nil {
			return nil, &toolError{class: "not_submitted",
				msg:  fmt.Sprintf("prompt not submitted: the pane was not ready for keys within %s; nothing was typed", timeout),
				hint: "submit_prompt again with a longer timeout"}
		}
		if err != nil {
			return nil, err
		}
		defer tp.unlock()
		s := submission{d: d, srv: tp.srv, pane: tp.pane, text: text, start: start, timeout: timeout, deadline: deadline}
		return s.run(ctx)
	})
}

// submission is one submit_prompt.
type submission struct {
	d       Deps
	srv     *supervisor.Server
	pane    tmux.Pane
	text    string
	start   time.Time
	timeout time.Duration
	// deadline ends the waits for the program (start + timeout).
	deadline time.Time
	name     agent.Name // the agent CLI in the pane, "" for another program
}

// run submits s.text and returns the result.
func (s *submission) run(ctx context.Context) (*mcp.CallToolResult, error) {
	id := s.pane.ID
	info, reading, err := s.d.readAgent(ctx, s.srv, s.pane)
	if err != nil {
		return nil, err
	}
	if info != nil && reading.State == agent.Unknown && agent.HasScreenRules(agent.Name(info.Name)) {
		if info, reading, err = s.awaitReadable(ctx); err != nil {
			return nil, err
		}
	}
	if info != nil && reading.State != agent.Exited {
		s.name = agent.Name(info.Name)
		switch reading.State {
		case agent.AskingPermission:
			return nil, &toolError{class: "asking_permission",
				msg:  fmt.Sprintf("%s in pane %s is asking a question; a prompt typed now would answer it:\n%s", info.Name, id, reading.Question),
				hint: "answer_permission answers it"}
		case agent.Working:
			return nil, &toolError{class: "agent_working",
				msg:  fmt.Sprintf("%s in pane %s is still working on a turn; a prompt typed now would be queued or lost", info.Name, id),
				hint: "wait_for_agent waits for the turn to end"}
		case agent.Unknown:
			if agent.HasScreenRules(s.name) {
				return nil, s.failure(ctx, fmt.Sprintf("%s shows no input area it is known to draw (a dialog, or a version that draws differently); nothing was typed", info.Name), nil)
			}
		}
	}
	// A program that asked for bracketed paste takes a multi-line text as
	// one input; one that did not (python3's REPL turns it off) reads it
	// line by line, as if typed, which is how such a program takes
	// several lines (a REPL continues the statement). The result says which.
	bracketed := bracketPaste(ctx, s.srv, id)
	before, err := s.d.screenNow(ctx, s.srv, id)
	if err != nil {
		return nil, err
	}
	s.d.markSend(ctx, s.srv, s.pane)
	if err := paste(ctx, s.srv, id, s.text, true); err != nil {
		return nil, err
	}
	taken, err := s.awaitTaken(ctx, before)
	if err != nil {
		return nil, err
	}
	takenAt := time.Since(s.start)
	var takenRead agent.Reading
	if s.name != "" {
		takenRead = agent.Read(s.name, taken.lines())
	}
	var after screenState
	enters := 0
	for {
		if err := s.srv.TypeKeys(ctx, id, "Enter"); err != nil {
			return nil, err
		}
		enters++
		var took enterOutcome
		if after, took, err = s.awaitSubmitted(ctx, taken); err != nil {
			return nil, err
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
			if enters == maxEnters {
				return nil, s.failure(ctx, fmt.Sprintf("Enter was pressed %d times and the program took none of them; the prompt is in its input area, not submitted", enters), nil)
			}
			continue
		}
		// The program took Enter for a new line in the paste: Gemini CLI
		// does for 40 ms after a paste by its own clock, which a busy
		// machine stretches while the screen is long quiet. Take the new
		// line back and press Enter again once the screen settles.
		if enters == maxEnters {
			return nil, s.failure(ctx, fmt.Sprintf("the program took Enter as a new line %d times; the prompt is in its input area, not submitted", enters), nil)
		}
		if err := s.srv.TypeKeys(ctx, id, "BSpace"); err != nil {
			return nil, err
		}
		if taken, err = s.awaitTakenBack(ctx, takenRead); err != nil {
			return nil, err
		}
	}
	msg := "Prompt submitted to pane " + string(id)
	if enters > 1 {
		msg += fmt.Sprintf(" (Enter pressed %d times: the program took an Enter as a new line, which was taken back, or did not answer one)", enters)
	}
	if strings.Contains(s.text, "\n") && bracketed != nil && !*bracketed {
		msg += " (line by line: the program did not ask for bracketed paste)"
	}
	out := submitted{Result: msg, PaneID: string(id), Bracketed: bracketed, Enters: enters,
		TakenMS: takenAt.Milliseconds(), SubmittedMS: time.Since(s.start).Milliseconds()}
	if s.name != "" {
		r := agent.Read(s.name, after.lines())
		out.Agent = &AgentInfo{Name: string(s.name), State: string(r.State), Question: r.Question}
	}
	return structured(out)
}

// bracketPaste reports whether the program in pane asked for bracketed
// paste (#{bracket_paste_flag}); nil when tmux does not say (before 3.7).
func bracketPaste(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID) *bool {
	v, err := srv.DisplayMessage(ctx, pane, "#{bracket_paste_flag}")
	if err != nil || (v != "0" && v != "1") {
		return nil
	}
	on := v == "1"
	return &on
}

// screenState is a pane's screen and cursor at one moment.
type screenState struct {
	content []byte
	cursorX int
	cursorY int
	line    int // the cursor's line counted from the top of the history
	alt     bool
}

func (s screenState) lines() []string {
	return strings.Split(string(bytes.TrimRight(s.content, "\n")), "\n")
}

// cursorLine returns the text of row cursorY of the screen.
func (s screenState) cursorLine(cursorY int) string {
	ls := s.lines()
	if cursorY < 0 || cursorY >= len(ls) {
		return ""
	}
	return ls[cursorY]
}

// screenNow reads pane's screen and cursor.
func (d Deps) screenNow(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID) (screenState, error) {
	pn, err := drive.ReadPane(ctx, srv, pane)
	if err != nil {
		return screenState{}, err
	}
	c, err := srv.Capture(ctx, screenRequest(pane))
	if err != nil {
		return screenState{}, err
	}
	return screenState{content: c.Content, cursorX: pn.CursorX, cursorY: pn.CursorY, line: pn.HistorySize + pn.CursorY, alt: pn.AlternateOn}, nil
}

// awaitTaken waits until the screen has changed from before and then
// stayed the same for submitSettle: the program has read the paste and
// drawn it. It returns that screen.
func (s *submission) awaitTaken(ctx context.Context, before screenState) (screenState, error) {
	last := before
	changedAt := time.Time{}
	err := drive.WatchUntil(ctx, s.srv, s.pane.ID, s.deadline, func() (bool, error) {
		now, err := s.d.screenNow(ctx, s.srv, s.pane.ID)
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
			return last, s.failure(ctx, "the program did not show the text (the screen did not change after the paste)", err)
		}
		return last, s.failure(ctx, "the program kept redrawing after the paste; Enter was not pressed", err)
	}
	return last, nil
}

// unknownSettle is how long an agent CLI's screen that its rules do not
// explain must stay the same before submit_prompt takes it for what it
// is (a dialog, another version) rather than a redraw under way.
const unknownSettle = time.Second

// awaitReadable waits, for an agent CLI whose screen its rules do not
// explain, until they do, or the screen has stayed the same for
// unknownSettle and is not blank: a program redrawing (after a resize, a
// split beside it; Codex clears its screen first, and beside busy loops
// the clear can stay up a while) reads unknown for a moment, a dialog
// for good. It returns the last reading.
func (s *submission) awaitReadable(ctx context.Context) (*AgentInfo, agent.Reading, error) {
	var info *AgentInfo
	var reading agent.Reading
	var last []byte
	since := time.Now()
	err := drive.WatchUntil(ctx, s.srv, s.pane.ID, s.deadline, func() (bool, error) {
		var err error
		pn, err := drive.ReadPane(ctx, s.srv, s.pane.ID)
		if err != nil {
			return false, err
		}
		lines, err := guard.Screen(ctx, s.srv, s.pane.ID)
		if err != nil {
			return false, err
		}
		if info, reading, err = s.d.readAgent(ctx, s.srv, pn); err != nil || info == nil {
			return true, err
		}
		if reading.State != agent.Unknown {
			return true, nil
		}
		screen := []byte(strings.Join(lines, "\n"))
		if !bytes.Equal(screen, last) {
			last, since = screen, time.Now()
			return false, nil
		}
		return len(bytes.TrimSpace(screen)) > 0 && time.Since(since) >= unknownSettle, nil
	})
	if errors.Is(err, drive.ErrWaitOver) {
		err = nil // the last reading stands: unknown
	}
	return info, reading, err
}

// awaitTakenBack waits, after a Backspace meant to take back a new line
// the program typed for an Enter, until the input area is again as the
// paste left it (paste: its reading then) and the screen has stayed so
// for submitSettle. It waits for that reading, not for any settled
// screen: a program starved of CPU redraws late and in parts (seen with
// Gemini CLI beside busy loops: a screen quiet for 150 ms still showed
// the new line, the Backspace not yet read), and an Enter pressed then
// would be typed into the wrong input.
func (s *submission) awaitTakenBack(ctx context.Context, paste agent.Reading) (screenState, error) {
	var last screenState
	backAt := time.Time{}
	err := drive.WatchUntil(ctx, s.srv, s.pane.ID, s.deadline, func() (bool, error) {
		now, err := s.d.screenNow(ctx, s.srv, s.pane.ID)
		if err != nil {
			return false, err
		}
		if !now.same(last) {
			last, backAt = now, time.Time{}
			r := agent.Read(s.name, now.lines())
			if r.InputKnown && r.Input == paste.Input && r.InputRows == paste.InputRows {
				backAt = time.Now()
			}
			return false, nil
		}
		return !backAt.IsZero() && time.Since(backAt) >= submitSettle, nil
	})
	if err != nil {
		return last, s.failure(ctx, "the program took Enter as a new line, and taking it back did not leave its input area as the paste did; Enter was not pressed again", err)
	}
	return last, nil
}

// same reports whether two readings show the same screen and cursor.
func (s screenState) same(o screenState) bool {
	return bytes.Equal(s.content, o.content) && s.cursorX == o.cursorX && s.line == o.line
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
func (s *submission) awaitSubmitted(ctx context.Context, taken screenState) (screenState, enterOutcome, error) {
	var takenInput, takenPrompt string
	inputKnown := false
	takenRows := 0
	if s.name != "" {
		r := agent.Read(s.name, taken.lines())
		takenInput, inputKnown, takenRows, takenPrompt = r.Input, r.InputKnown, r.InputRows, r.Prompt
	}
	outcome := enterSubmitted
	tail := lastLineTail(s.text)
	pressed := time.Now()
	var now screenState
	err := drive.WatchUntil(ctx, s.srv, s.pane.ID, s.deadline, func() (bool, error) {
		var err error
		if now, err = s.d.screenNow(ctx, s.srv, s.pane.ID); err != nil {
			return false, err
		}
		agentRules := s.name != "" && inputKnown
		if now.same(taken) && !agentRules {
			return false, nil
		}
		if agentRules {
			r := agent.Read(s.name, now.lines())
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
		return now, enterSubmitted, s.failure(ctx, "Enter was pressed but the program did not take the text as submitted", err)
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

// failure is the error of a submission that did not go through: what
// went wrong, and the screen as it is now, so that the caller sees it.
func (s *submission) failure(ctx context.Context, what string, cause error) error {
	msg := fmt.Sprintf("prompt not submitted to pane %s: %s", s.pane.ID, what)
	if errors.Is(cause, drive.ErrWaitOver) || drive.PastDeadline(cause, s.deadline) {
		msg += fmt.Sprintf(" within %s", s.timeout)
	} else if cause != nil {
		msg += ": " + cause.Error()
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if c, err := s.srv.Capture(rctx, screenRequest(s.pane.ID)); err == nil {
		msg += "\nThe screen now:\n" + strings.TrimRight(string(c.Content), "\n ")
	}
	return &toolError{msg: msg, class: "not_submitted", hint: "read the screen; submit_prompt again once the program is ready"}
}
