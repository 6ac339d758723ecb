package agent

import (
	"strings"
)

// State is what an agent CLI is doing, as its screen shows it.
type State string

// The states. An agent whose screen its row's rules do not explain is
// Unknown; Exited is for a pane whose agent has ended (the tools know
// that from the process tree, not from the screen).
const (
	Working          State = "working"
	WaitingForInput  State = "waiting_for_input"
	AskingPermission State = "asking_permission"
	Exited           State = "exited"
	Unknown          State = "unknown"
)

// Reading is what [Read] made of a screen.
type Reading struct {
	State State
	// Question is the permission question with its options, as the
	// screen shows it, when State is AskingPermission.
	Question string
	// Input is the text in the agent's input area (its first line when it
	// holds several), and InputKnown whether the screen showed an input
	// area at all.
	Input      string
	InputKnown bool
	// InputRows is how many rows a boxed input area spans, from the input
	// line down to the box's closing rule (0 when the program draws no
	// box), and InputLastBlank whether its last row is empty: an Enter
	// the program took as a new line adds an empty row.
	InputRows      int
	InputLastBlank bool
	// Answer is the screen above the input area from the last prompt the
	// agent was given: the agent's reply to it, as far as the screen
	// shows it.
	Answer string
	// Prompt is the transcript's line of the last prompt the agent was
	// given, as the screen shows it ("" when none is on the screen, or
	// the row does not know how the agent shows prompts: ShowsPrompts).
	Prompt string
}

// Read reads the screen of agent name (the lines of the visible screen,
// top to bottom). An agent not in the table reads Unknown.
func Read(name Name, screen []string) Reading {
	r := ruleOf(name)
	if r == nil {
		return Reading{State: Unknown}
	}
	lines := trimRight(screen)
	out := Reading{State: Unknown}
	top := len(lines) // the first line of the input area
	if i, input, ok := r.inputArea(lines); ok {
		top, out.Input, out.InputKnown = i, input, true
		if r.boxed {
			out.InputRows, out.InputLastBlank = boxRows(lines, i)
		}
	}
	switch {
	case r.isAsking(lines):
		out.State = AskingPermission
		out.Question = r.question(lines)
	case r.isWorking(lines) || (out.InputKnown && r.turnOpen(lines[:top])):
		out.State = Working
	case out.InputKnown:
		out.State = WaitingForInput
	}
	out.Answer = r.answer(lines[:top])
	if p, ok := r.lastPrompt(lines[:top]); ok {
		out.Prompt = lines[p]
	}
	return out
}

// ShowsPrompts reports whether the table knows how name's transcript
// shows a prompt it was given (Reading.Prompt).
func ShowsPrompts(name Name) bool {
	r := ruleOf(name)
	return r != nil && r.prompt != nil
}

// trimRight returns the lines of screen without their trailing blanks.
func trimRight(screen []string) []string {
	lines := make([]string, len(screen))
	for i, l := range screen {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// Known reports whether name is a row of the table.
func Known(name Name) bool { return ruleOf(name) != nil }

// HasScreenRules reports whether the table can read name's screen (its
// row has an input line): for the others every screen reads Unknown.
func HasScreenRules(name Name) bool {
	r := ruleOf(name)
	return r != nil && r.input != nil
}

// Names returns the agents of the table, in its order.
func Names() []Name {
	out := make([]Name, 0, len(rules))
	for _, r := range rules {
		out = append(out, r.name)
	}
	return out
}

// Answer is a reply to a permission question.
type Answer string

// The replies every agent's question offers.
const (
	Yes       Answer = "yes"        // this once
	YesAlways Answer = "yes_always" // and do not ask again (as the agent scopes it)
	No        Answer = "no"
)

// Keys returns the keys (tmux key names) that give answer a to agent
// name's permission question, and whether the agent offers it.
func Keys(name Name, a Answer) ([]string, bool) {
	r := ruleOf(name)
	if r == nil {
		return nil, false
	}
	k, ok := r.answers[a]
	return k, ok
}
