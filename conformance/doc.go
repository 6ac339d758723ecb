//go:build conformance

// Package conformance holds the fixtures of the official MCP conformance
// suite (@modelcontextprotocol/conformance): the tools, prompts and
// resources its server scenarios call by name, with the behaviour each
// scenario checks. They are built only with the build tag conformance
// (`go build -tags conformance ./cmd/tmux-mcp`, what `make conformance`
// serves); a release binary has none of them.
//
// The fixtures are written as tmux-mcp's own tools are: mcp.NewTool and
// mcp-go's handler types, added to the server tmux-mcp builds, so its
// middleware (logging, panic recovery, drain) and the tasks layer run
// around them. A tool that fails reports a tool error (isError); a
// fixture that must end in a JSON-RPC error returns a Go error.
//
// The files, one concern each:
//
//   - register.go: [Register], which adds every fixture, and the names.
//   - content.go: tools whose result is the test (text, image, audio,
//     embedded resource, mixed, a tool error).
//   - schema.go: tools whose input schema is the test (JSON Schema
//     2020-12 keywords, an x-mcp-header parameter).
//   - notify.go: tools that send log and progress notifications.
//   - stateless.go: the diagnostic tools of the server-stateless
//     scenario (a capability the client must declare, a response stream,
//     logging without a log level).
//   - mrtr.go: the multi round-trip (input_required) tools and prompt.
//   - state.go: the sealed requestState the multi round-trip fixtures
//     hand out, so a tampered one is refused.
//   - tasks.go: the fixtures of the tasks extension (greet, slow_compute,
//     failing_job, protocol_error_job, confirm_delete, multi_input,
//     test_tool_with_task).
//   - taskcall.go: the seam to the tasks layer (package taskext).
//   - prompts.go, resources.go: the prompts and resources.
//   - media.go: the image and audio payloads.
package conformance
