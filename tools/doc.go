// Package tools is the MCP surface of tmux-mcp: the tool registry, safety
// tiers, argument checking, the error contract, resources and server
// instructions, and what the server pushes: resource subscriptions
// (subscriptions.go), log notifications of supervisor events (logging.go)
// and progress of long calls (progress.go); plus prompts (prompts.go) and
// completions (completions.go). Tool names, parameters and result fields
// follow libtmux-mcp.
//
// Where to start: [Groups] is the one declarative list of tools; each tool
// is a constructor such as [ListSessions] that returns its schema and its
// handler side by side. [New] builds the MCP server for a [Deps] and
// [Options]: it registers the tools allowed by the tier and toolsets, the
// resources, the instructions and the middleware (panic recovery, logging
// without arguments, draining on shutdown).
//
// Every tmux call goes through a *supervisor.Server. Errors a caller can act
// on (a bad argument, an unknown target, a server that is down or
// restarting) come back as tool error results whose text says what went
// wrong, the tmux error class in brackets, and what to do next; internal
// faults come back as Go errors; a panic in a handler becomes an error
// result and the server keeps serving.
//
// List tools wrap their list as {"result": [...]} and kill_* tools return
// {"result": "<message>"}: this is how libtmux-mcp's FastMCP shapes list
// and string returns, so clients written for it read the same fields.
package tools
