package guard

import (
	"errors"
	"testing"
)

// TestWithSetOptionHint: a refusal met turning synchronize-panes on names
// set_option's arguments, not the typing tools'; other errors pass as
// they are.
func TestWithSetOptionHint(t *testing.T) {
	agentPane := &Error{Class: "agent_pane", Msg: "pane %1 runs claude: typing into it needs allow_agent: true (send_keys, paste_text, submit_prompt take it)", Hint: "x"}
	got := withSetOptionHint(agentPane)
	var ge *Error
	if !errors.As(got, &ge) || ge.Msg != "pane %1 runs claude: typing into it needs allow_agent: true (set_option takes it)" ||
		ge.Hint != "set_option allow_agent: true turns it on all the same" {
		t.Errorf("agent_pane: %+v", got)
	}
	if agentPane.Hint != "x" {
		t.Errorf("withSetOptionHint changed the error it was given: %+v", agentPane)
	}
	for class, hint := range map[string]string{
		"asking_permission": "answer_permission answers it first; then set_option again",
		"attended_pane":     "ask the person first; set_option allow_attended: true turns it on all the same",
		"refused":           "kept",
	} {
		got := withSetOptionHint(&Error{Class: class, Msg: "m", Hint: "kept"})
		if !errors.As(got, &ge) || ge.Hint != hint || ge.Msg != "m" {
			t.Errorf("%s: %+v, want hint %q", class, got, hint)
		}
	}
	plain := errors.New("tmux: gone")
	if got := withSetOptionHint(plain); got != plain {
		t.Errorf("a plain error became %v", got)
	}
}
