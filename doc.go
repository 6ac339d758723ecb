// Package tmuxmcp is the map of the module: it holds no code. tmux-mcp is
// an MCP server for tmux whose every tmux call goes through a supervisor;
// its packages are floors of one house, and imports point down only
// (layers_test.go ranks every folder and fails on an import sideways or
// up). Top down:
//
//   - cmd/tmux-mcp: flags and wiring only.
//   - tools (the MCP surface) beside httpmcp, taskext, hosts and view, and
//     conformance (the suite's fixtures).
//   - jobs (the background jobs, which read their panes through drive).
//   - drive (pane driving), journal, telemetry, diagnostics: the
//     supervisor's users.
//   - guard: the refusals of keys and actions on panes they must not
//     reach (the caller's own, synchronized windows, agents, people).
//   - supervisor, with its parts supervisor/capture and supervisor/death;
//     jobrecord, the one record of a job, which jobs keeps, journal
//     stores, taskext answers from and view lists.
//   - tmux (the wire, with tmux/native, tmux's client protocol, and
//     tmux/codec), proc (the platform seams), shellquote (shell command
//     lines), agent: the ground floor,
//     importing nothing of the module but their own sub-packages.
//
// The README's layout section has a line per package; go doc shows each
// package's own map.
package tmuxmcp
