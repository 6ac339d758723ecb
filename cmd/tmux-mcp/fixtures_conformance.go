//go:build conformance

package main

import (
	"github.com/tmux-mcp/tmux-mcp/conformance"
	"github.com/tmux-mcp/tmux-mcp/tools"
)

// conformanceBuild reports whether this binary carries the conformance
// suite's fixtures (the build tag conformance: `make conformance`).
const conformanceBuild = true

// addFixtures adds the fixtures of the MCP conformance suite (package
// conformance) to the server, and has the tasks layer adapt them as it
// adapted tmux-mcp's tools (a required task support). Only a binary built
// with the tag conformance has them.
func addFixtures(ts *tools.Server) {
	conformance.Register(ts.MCP)
	ts.Tasks.Adapt(ts.MCP)
}
