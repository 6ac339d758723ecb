// Package tools is the MCP surface of tmux-mcp: the tool registry, safety
// tiers, argument checking, the error contract, and the resources' handlers.
// The protocol machinery that needs no tool handler is package mcpserver:
// resource subscriptions, log notifications of supervisor events, progress
// of long calls, prompts, completions, the instructions, the middleware,
// MCP tasks and host routing. Tool names, parameters and result fields
// follow libtmux-mcp.
//
// Where to start: [Groups] in registry.go is the one declarative list of
// tools; each tool is a constructor such as [ListSessions] that returns its
// schema and its handler side by side. [New] (mcpserver.go) builds the MCP
// server for a [Deps] and [Options]: it builds the tools of the toolsets,
// hides those above the tier, and hands them, with the resources' handlers
// and the instructions, to mcpserver.New.
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
// (startTyping). The refusals of keys and actions on panes they must not
// reach (the caller's own pane, also through a host hop, windows
// synchronized with it, other agent CLIs' panes, a person's pane) and
// asking the user are package guard's: guard.go hands it what it needs of
// Deps and the allow_agent and allow_attended arguments, and
// caller_results.go and agent_info.go turn what it finds into is_caller
// and agent fields. Every other file is named for the one thing it holds:
// the resources' handlers (resources.go), the shared machinery of the
// handlers (handle, target, errors, schema, tier), and the pieces some
// tools share, such as the stale-screen guard (staleguard.go). Tests sit
// beside the file that declares what they test; the guards' and the
// protocol's tests through the tools stay here (ownpane_test.go,
// selfprotect_test.go, agent_guard_test.go, subscriptions_test.go, ...),
// for they need a whole server (helper_test.go's env, built with New).
//
// The package is one package, not one per group, on purpose: the groups
// share most of their machinery (argument checking, targets, the error
// contract, the pane reader), and subpackages would have to
// export it all, making an internal API that only this package uses.
//
// How a tool is declared (its annotations and schemas) and how its
// arguments are checked and read is package tooldef: a handler receives
// tooldef.Args, and handle.go adapts it to mcp-go and maps its errors.
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
