package main

import (
	"fmt"
	"slices"
)

// module is the import path of this module, the prefix of its packages.
const module = "github.com/tmux-mcp/tmux-mcp"

// belowSurface are the packages that speak to tmux themselves: its
// client and protocol, the supervisor and its captures, the journal and
// its restore, the diagnostics that read the server, /proc. Where tmux
// releases differ (formats, control mode, capture flags, pipe feeds on
// 3.2a), it is in these, and so are the tests that name a release. The
// MCP surface, the hosts and the view sit on top of them.
var belowSurface = []string{
	"tmux", "tmux/codec", "tmux/native", "tmux/spawn", "tmux/tmuxtest",
	"supervisor", "supervisor/capture", "supervisor/death", "supervisor/ratelimit",
	"journal", "diagnostics", "proc", "telemetry",
}

// endToEnd are the packages whose tests drive a whole program from
// outside: the built binary over stdio and HTTP, remote hosts over ssh,
// the view in chromium. What they add over the tool handlers' tests is
// the same on every tmux.
var endToEnd = []string{"cmd/tmux-mcp", "hosts", "view"}

// checkLists fails when belowSurface or endToEnd names a package that is
// not among pkgs: a package renamed or removed would otherwise change
// what the matrix runs, silently.
func checkLists(pkgs []pkg) error {
	have := map[string]bool{}
	for _, p := range pkgs {
		have[p.path] = true
	}
	for _, p := range slices.Concat(belowSurface, endToEnd) {
		if !have[module+"/"+p] {
			return fmt.Errorf("scripts/citest/matrix.go names package %s, which has no tests", p)
		}
	}
	return nil
}

// paths returns the import paths of names, as a set.
func paths(names []string) map[string]bool {
	m := map[string]bool{}
	for _, p := range names {
		m[module+"/"+p] = true
	}
	return m
}

// matrixSuite is the suite of the i-th of n tmux versions. With full,
// every test runs on it. Without, the matrix is cut to what a landing on
// two cores can pay for beside the race suite (issue 43's gate: cold
// caches and a loaded machine in 15 minutes), the rest left to make
// matrix. The race suite on the PATH tmux runs every test; on the
// matrix, none drives the agent CLIs (three Node.js programs drawing
// their screens under tmux, the dearest tests by far), and
//   - the newest (the development line) runs every other test;
//   - the oldest, all but the end-to-end packages;
//   - the releases between, the packages below the MCP surface.
func matrixSuite(version string, i, n int, full bool) *suite {
	s := &suite{name: version, ready: make(chan struct{})}
	if full {
		return s
	}
	s.env = []string{"CI_AGENTS=0"} // agentstub.RequireEnv
	switch {
	case i == n-1:
	case i == 0:
		s.skip = paths(endToEnd)
	default:
		s.only = paths(belowSurface)
	}
	return s
}
