package mcpserver

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// argError is a bad argument of a prompt: it names the argument and what
// is accepted and never echoes the value, in the words of the tool
// layer's argument errors.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

// newArgError reports a bad argument name.
func newArgError(name, format string, a ...any) error {
	return &argError{msg: argMessage(name, format, a...)}
}

// argMessage is the message of a bad argument name.
func argMessage(name, format string, a ...any) string {
	return "argument " + name + ": " + fmt.Sprintf(format, a...)
}

// ErrorResult renders an error a caller can act on the way libtmux-mcp
// does (message, then the suggestion hint on its own line), with the
// error class in brackets, and the class and hint in _meta too.
func ErrorResult(msg, class, hint string) *mcp.CallToolResult {
	text := msg
	if class != "" {
		text += " [" + class + "]"
	}
	if hint != "" {
		text += "\n" + hint
	}
	res := mcp.NewToolResultError(text)
	meta := map[string]any{"error_type": class, "expected": true}
	if hint != "" {
		meta["suggestion"] = hint
	}
	res.Meta = mcp.NewMetaFromMap(meta)
	return res
}
