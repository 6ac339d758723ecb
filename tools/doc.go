// Package tools is the MCP surface of tmux-mcp: the tool registry, safety
// tiers, argument checking, the error contract, resources and server
// instructions, and what the server pushes: resource subscriptions
// (subscriptions.go), log notifications of supervisor events (logging.go)
// and progress of long calls (progress.go); plus prompts (prompts.go) and
// completions (completions.go). Tool names, parameters and result fields
// follow libtmux-mcp.
//
// Where to start: [Groups] in registry.go is the one declarative list of
// tools; each tool is a constructor such as [ListSessions] that returns its
// schema and its handler side by side. [New] (mcpserver.go) builds the MCP
// server for a [Deps] and [Options]: it registers the tools allowed by the
// tier and toolsets, the resources, the instructions and the middleware
// (panic recovery, logging without arguments, draining on shutdown).
//
// Where things are: the tools of a group live in the file named for the
// group, <group>.go, or, for a large group, <group>_<part>.go: the pane
// group's reading tools in pane_capture.go, pane_since.go, pane_search.go
// and pane_wait.go, its typing tools in pane_keys.go, pane_paste.go and
// pane_run.go; the job group's in job.go. A test
// (TestToolsLiveInTheirGroupFile) keeps it so. The background jobs
// themselves are package jobs, the engine; job_engine.go opens its table
// and turns its refusals into tool errors. Pane driving (typing, the send
// mark, waiting for text, a command's end, the history anchor) is package
// drive; driving.go holds what the tools share of it and turns its
// errors into tool errors, and typing.go readies a pane for keys
// (startTyping). Every
// other file is named for the one thing it holds: protocol parts (resources,
// subscriptions, prompts, completions, logging, progress), the shared
// machinery of the handlers (params, target, errors, schema, middleware,
// tier), and the pieces some tools share, such as the stale-screen guard
// (staleguard.go) and the refusal to act on the caller's own pane
// (selfprotect.go, ownpane.go; through a host hop from this machine,
// hopcaller.go). Tests sit beside the file
// that declares what they test.
//
// The package is one package, not one per group, on purpose: the groups
// share most of their machinery (argument checking, targets, the error
// contract, the guards, the pane reader), and subpackages would have to
// export it all, making an internal API that only this package uses.
//
// Every tmux call goes through a *supervisor.Server. Errors a caller can act
// on (a bad argument, an unknown target, a server that is down or
// restarting) come back as tool error results whose text says what went
// wrong, the tmux error class in brackets, and what to do next; internal
// faults come back as Go errors; a panic in a handler becomes an error
// result and the server keeps serving.
//
// List tools wrap their list as {"result": [...]} and tools that confirm
// with a string (kill_*, display_message, the channel tools, ...) return
// {"result": "<message>"}: this is how libtmux-mcp's FastMCP shapes list
// and string returns, so clients written for it read the same fields.
//
// The batch tools call other tools' handlers: [New] indexes the tools it
// serves in Deps, and a batch looks its operations up there, so it calls
// exactly what a direct call would, at each tool's own tier.
package tools
