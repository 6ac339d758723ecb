// Package telemetry sets up OpenTelemetry for tmux-mcp: the SDK, the
// tracing of MCP requests, and metrics from the supervisor. The other
// packages use only the OpenTelemetry API; cmd/tmux-mcp wires this one in.
//
// # Set-up
//
// Telemetry is off unless asked for. [PlanFromEnv] reads the variables that
// decide whether a signal is exported and how: OTEL_EXPORTER_OTLP_ENDPOINT
// and OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT switch a signal on,
// OTEL_{TRACES,METRICS}_EXPORTER (otlp or none) switch it on or off,
// OTEL_EXPORTER_OTLP_[{TRACES,METRICS}_]PROTOCOL picks grpc, http/protobuf
// (the default) or http/json, and OTEL_SDK_DISABLED=true turns OTLP export
// off; --trace-file appends spans to a file as JSON lines, never to stdout.
// An exporter or protocol it does not support is an error naming the
// variable. The SDK and its exporters read the rest themselves (endpoints,
// headers, TLS, compression, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
// the sampler, OTEL_BSP_*, OTEL_METRIC_EXPORT_*); this package only bounds
// an export's retries to 5 s and its timeout to 5 s unless
// OTEL_EXPORTER_OTLP_[{TRACES,METRICS}_]TIMEOUT sets one.
//
// The resource names the process: service.name tmux-mcp, service.version,
// a random service.instance.id per process, host.name, process.pid; what
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES say wins over all of it,
// so hosts whose names say little can be named there.
//
// [Start] builds the providers, installs them as the global ones (the
// supervisor takes its tracer from there) and logs export errors at most
// once per 30 s. Telemetry never holds up a call: spans wait in the SDK's
// bounded queue and are dropped when it is full, and [Telemetry.Shutdown]
// gives the last flush one second.
//
// # What is recorded
//
// [Telemetry.ServerOptions] gives mcp-go a tracer and hooks that make one
// server span per MCP request, after the OpenTelemetry semantic conventions
// for MCP: named "{mcp.method.name} {target}" ("tools/call list_sessions",
// "prompts/get run_and_wait", "resources/read"), with mcp.method.name,
// gen_ai.tool.name, gen_ai.prompt.name, mcp.resource.uri,
// jsonrpc.request.id, mcp.session.id, mcp.protocol.version,
// network.transport, and on failure error.type (tool_error with
// tmux.error_class, or the JSON-RPC code). A request whose params._meta
// (or, over HTTP, whose headers) carry traceparent joins the caller's
// trace. The supervisor's "tmux {command}" spans hang under the request
// span. The same options record mcp.server.operation.duration and
// mcp.server.active_requests.
//
// [Telemetry.TaskTracer] gives the MCP tasks layer (package taskext) the
// rest (tasks.go): the span of a tools/call that became a task ends when
// the task does, with its outcome (tmux.task.id, tmux.task.status,
// error.type cancelled for a cancelled one), and the requests the layer
// answers itself (tasks/get, ...) get server spans of their own, under
// the task's span or linked to it.
//
// [Telemetry.ObserveSupervisor] turns supervisor events into
// tmux.command.duration, tmux.barrier.duration, tmux.captures,
// tmux.rate_limited, tmux.resource_refused, tmux.server.deaths,
// tmux.server.restarts and tmux.server.restore.duration, and observes each
// live server's tmux.server.open_fds, tmux.server.fd_limit and
// tmux.server.memory.rss and the host's tmux.ptys.used and tmux.ptys.max.
//
// Spans and metrics carry names, IDs, sizes and error classes only: never
// tool arguments or results, error messages, keystrokes, pane text or
// environment values. TestSpansCarryNoSecrets holds that line.
//
// The tracer and meter are named for this package's path,
// github.com/tmux-mcp/tmux-mcp/telemetry (the supervisor's spans are named
// for package supervisor's).
//
// # Where to start
//
// cmd/tmux-mcp calls [PlanFromEnv], then [Start] with the binary's version,
// then [Telemetry.ObserveSupervisor], [Telemetry.ServerOptions] and
// [Telemetry.TaskTracer] while it builds the server, and
// [Telemetry.Shutdown] last. A zero or switched-off
// [Telemetry] gives no options and observes nothing.
package telemetry
