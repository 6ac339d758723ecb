// Package mcpserver is tmux-mcp's MCP protocol machinery, everything of
// the server that needs no tool handler: mcp-go's server with tmux-mcp's
// hooks and middleware (panic recovery, logging without arguments,
// draining on shutdown: middleware.go), the MCP tasks kept in the job
// table (task_store.go), resource subscriptions (subscriptions.go, the
// addresses they accept in subtarget.go, one subscription's delivery in
// subscription.go) and resource list changes (notify.go), log
// notifications of supervisor events (logging.go), progress of long calls
// (progress.go), prompts (prompts.go), completions (completions.go), the
// server instructions (instructions.go), routing of calls and resources
// to other hosts (hosts.go), the one JSON encoder of results
// (jsonenc.go), the rendering of tool error results (errors.go), and the
// live view's source (viewsource.go).
//
// Where to start: [New] (server.go) builds a [Server] from a [Config]:
// the tools to register, already built, and the few answers only the tool
// layer can give (a socket_name check, a session lookup, a job lookup,
// the callers of a routed call), as functions. A Server is THE MCP
// server of the process; the transports serve its MCP and Tasks.
//
// What it leaves to package tools: the tool definitions and their
// handlers, and the handlers' shared machinery (arguments, targets, the
// error contract, result models, safety tiers), the resource handlers
// that read tmux (tools/resources.go registers them through
// Config.Resources), and the jobs and files the tools hold. tools.New
// builds the tool entries and hands them here; this package imports
// nothing of tools, so tools' tests can build a whole server.
package mcpserver
