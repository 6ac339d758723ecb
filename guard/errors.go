package guard

// Error is a refusal the caller can act on: the tools turn it into a
// tool error result, "<Msg> [<Class>]\n<Hint>", as their own errors.
type Error struct {
	Msg   string
	Class string // "refused", "agent_pane", "asking_permission", "attended_pane"
	Hint  string
}

func (e *Error) Error() string { return e.Msg }
