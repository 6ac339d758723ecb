package tooldef

import "fmt"

// ArgError is a bad argument: one the input schema refuses (Check), or one
// a handler refuses after reading it (BadArg). It names the argument and
// what is accepted and never echoes the value, which may be a secret.
type ArgError struct {
	Msg  string
	Hint string // what to do instead; may be empty
}

func (e *ArgError) Error() string { return e.Msg }

// BadArg reports that argument name is refused; format says what is
// accepted.
func BadArg(name, format string, a ...any) error {
	return &ArgError{Msg: "argument " + name + ": " + fmt.Sprintf(format, a...)}
}
