// Package e2etest is for tests: what the end-to-end tests of the built
// tmux-mcp binary share, in cmd/tmux-mcp, hosts and view. It builds the
// binary once per test process (or takes the one TMUX_MCP_TEST_BIN names,
// as scripts/citest builds it once for every package), starts it over
// stdio and HTTP against an isolated tmux server, and reads what it
// answers.
//
//   - binary.go: Binary, Main (a test binary's TestMain ends with it), Env
//     (the environment that keeps the binary off the user's tmux and
//     journal), Buffer (a child's stderr).
//   - stdio.go: StartStdio, StartLegacyStdio and the Notifications a
//     client of the 2025 protocol hears; RPC for the requests mcp-go
//     offers only as deprecated calls.
//   - http.go: StartHTTP and the HTTP process (its URL, token, client).
//   - results.go: tool calls and their results as JSON and text.
//   - collector.go: a local OpenTelemetry collector (OTLP/HTTP, OTLP/gRPC).
//   - pane.go: the binary run inside a pane of the server it supervises.
//   - otheruser.go and proc.go: another local user's process, /proc.
//
// It drives the binary and never imports it: it sits low in the rank
// table (layers_test.go), above the wire's tmuxtest it uses.
package e2etest
