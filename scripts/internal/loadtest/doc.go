// Package loadtest holds what the two load harnesses share: the soak and
// fault harness (scripts/repro, make soak) and the many-agents harness
// (scripts/scale, make scale). It reads processes from /proc (Linux; on
// other systems every process reads as gone), summarises latencies,
// draws the SVG line charts of the HTML reports, and calls tmux-mcp's
// tools over an mcp-go client. What each harness runs, measures and
// judges stays in its own directory.
package loadtest
