// Package tooldef is how a tmux-mcp tool is declared and how its
// arguments are read: [New] builds a tool with its four annotations
// ([Hints]), its output schema and its input options; [AnyOf], [Object],
// [Record] and [WithCaller] build the output schemas at the fewest bytes
// an agent pays for on every tools/list; [Check] checks a call's
// arguments against the tool's input schema ([InputSchema]) and returns
// them as [Args], whose accessors read them by name; [ArgError] is the
// one error a bad argument gives, whether the schema or the handler
// refused it, and it never echoes the value.
//
// The tools themselves, their handlers and the error contract around
// them are package tools; this package knows no tool and no tmux.
package tooldef
