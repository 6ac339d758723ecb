//go:build !conformance

package main

import "github.com/tmux-mcp/tmux-mcp/tools"

// conformanceBuild reports whether this binary carries the conformance
// suite's fixtures: a release binary does not.
const conformanceBuild = false

// addFixtures does nothing: the conformance suite's fixtures are built
// only with the tag conformance (fixtures_conformance.go).
func addFixtures(*tools.Server) {}
