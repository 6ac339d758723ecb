// Package taskext serves the MCP tasks extension of protocol 2026-07-28
// (io.modelcontextprotocol/tasks, SEP-2663) on top of mcp-go, which does
// not implement it yet (mark3labs/mcp-go#980). It is kept apart so that it
// can be deleted when mcp-go lands the extension.
//
// A client that declares the extension in a request's
// _meta["io.modelcontextprotocol/clientCapabilities"] may get a task
// handle (resultType "task") instead of a tool result: the server decides
// per call. A call to a task-supporting tool (mcp.Tool.Execution.TaskSupport
// optional or required) that has not finished within the budget
// ([Options.Budget], half a second by default), or whose handler asks the
// client for input or detaches itself ([Call]), becomes a task; one that
// finishes sooner answers as it always did. The client then polls
// tasks/get, answers input requests with tasks/update, cancels with
// tasks/cancel, and may hear notifications/tasks on a subscriptions/listen
// stream.
//
// What mcp-go offers is used where it reaches: the tool handler middleware
// ([Manager.Middleware]) runs each call and detaches it. What it does not
// offer (methods of its own, a result of another shape, capabilities per
// protocol revision) is done one layer out, on the JSON-RPC messages
// themselves: [Manager.Stdio] wraps the stdio streams and
// [Manager.HTTP] the streamable HTTP handler. They answer tasks/get,
// tasks/update, tasks/cancel and task subscriptions of 2026-07-28 requests,
// refuse tasks/list and tasks/result there (-32601), turn a detached
// call's placeholder result into the CreateTaskResult, and leave every
// other message, and every message of an older protocol (whose tasks
// mcp-go serves), as it is.
//
// Clients on protocol 2025-11-25 ask for a task themselves (params.task on
// tools/call) and use tasks/get, tasks/result, tasks/list and tasks/cancel
// of that revision. mcp-go v1.2.1 implements those but runs the task on
// the context of the tools/call request, which it cancels once that
// request is answered, so every such task was cancelled at once; the
// layer serves them on the same tasks instead (v1.go), and mcp-go only
// advertises them.
//
// A task whose tmux server died under it fails (an internal error), as
// the protocol has a crash of what serves a request fail it, whichever
// comes first: the tool's own error ([Options.Lost] recognises it) or the
// death event ([Control.Fail]).
//
// A task belongs to the caller that made it (owner.go, [OwnerOf]): any
// other is told what an unknown ID gets. At most [Options.MaxTasks] are
// held, and a TTL asked for is cut to [Options.MaxTTL]. A [Tracer] (the
// binary's telemetry) keeps a task's span open to its end and traces the
// layer's own requests (trace.go).
//
// A task is recorded through a [Store] (tmux-mcp's job table: one ID
// space, one journal record), which also finds the tasks of an earlier
// tmux-mcp process after a restart. A task's state is the call part of
// its job's record ([Snapshot] holds a jobrecord.Call, whose [Status] and
// [RPCError] these are): the store saves that value as it is.
//
// Where to start: [Manager] in manager.go; the middleware in call.go; the
// methods in methods.go and, for 2025-11-25, v1.go; the transports in
// stdio.go and http.go; whose a task is in owner.go; its spans in
// trace.go; the shapes on the wire in wire.go.
package taskext
