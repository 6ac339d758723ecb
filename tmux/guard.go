package tmux

import (
	"errors"
	"regexp"
	"strings"
)

// ErrRefused matches commands the wire will not send because they are
// known to crash or wedge the tmux server.
var ErrRefused = errors.New("tmux: command refused")

// layoutPresets are select-layout's named layouts.
var layoutPresets = []string{
	"even-horizontal", "even-vertical", "main-horizontal", "main-horizontal-mirrored",
	"main-vertical", "main-vertical-mirrored", "tiled",
}

// layoutString matches the start of a layout as #{window_layout} prints it:
// a four-digit hex checksum and a comma ("b25f,80x24,0,0,2").
var layoutString = regexp.MustCompile(`^[0-9a-fA-F]{4},`)

// checkCommand refuses commands known to crash the server. On tmux 3.3a,
// select-layout with an argument that is neither a layout name nor starts
// with a hex checksum ("x", "tiledx", "zzzz,80x24,0,0,1") kills the server
// with SIGSEGV (measured); strings that start with a checksum, exact names
// and name prefixes ("main-v", even the ambiguous "even") are safe and
// reach tmux.
func checkCommand(args []string) error {
	if len(args) < 2 || (args[0] != "select-layout" && args[0] != "selectl") {
		return nil
	}
	layout, ok := layoutArg(args[1:])
	if !ok || layoutString.MatchString(layout) || presetPrefix(layout) {
		return nil
	}
	return &CommandError{Args: args, ExitCode: -1, Class: ErrRefused,
		Stderr: "refused: layout " + quoteForError(layout) + " is neither a layout name nor a layout string; tmux 3.3a crashes on such input"}
}

// layoutArg returns select-layout's positional argument, skipping flags
// (-E -n -o -p take none; -t takes a value).
func layoutArg(args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		case a == "-t":
			i++
		case len(a) > 1 && a[0] == '-':
			if a[len(a)-1] == 't' { // -Et target
				i++
			}
		default:
			return a, true
		}
	}
	return "", false
}

func presetPrefix(s string) bool {
	for _, p := range layoutPresets {
		if s != "" && strings.HasPrefix(p, s) {
			return true
		}
	}
	return false
}

// quoteForError shows at most 40 bytes of user input in an error.
func quoteForError(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return "\"" + s + "\""
}
