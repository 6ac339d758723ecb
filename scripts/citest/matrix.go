package main

import "fmt"

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

// checkBelowSurface fails when belowSurface names a package that is not
// among pkgs: a package renamed or removed would otherwise leave the
// middle of the matrix without its tests, silently.
func checkBelowSurface(pkgs []pkg) error {
	have := map[string]bool{}
	for _, p := range pkgs {
		have[p.path] = true
	}
	for _, p := range belowSurface {
		if !have[module+"/"+p] {
			return fmt.Errorf("scripts/citest/matrix.go names %s among the packages below the MCP surface, and it has no tests", p)
		}
	}
	return nil
}

// matrixSuite is the suite of the i-th of n tmux versions. With full,
// every test runs on it. Without, the matrix is cut to what a landing on
// two cores can pay for beside the race suite (issue 43's gate: cold
// caches and a loaded machine in 15 minutes), the rest left to make
// matrix:
//   - the newest (the development line): every test, the agent CLIs
//     included (the race suite on the PATH tmux drives them too);
//   - the oldest: every test but the agent CLIs (three Node.js programs
//     drawing their screens under tmux, the dearest tests by far);
//   - the releases between: the packages below the MCP surface.
func matrixSuite(version string, i, n int, full bool) *suite {
	s := &suite{name: version, ready: make(chan struct{})}
	switch {
	case full || i == n-1:
	case i == 0:
		s.env = []string{"CI_AGENTS=0"} // agentstub.RequireEnv
	default:
		s.env = []string{"CI_AGENTS=0"}
		s.only = map[string]bool{}
		for _, p := range belowSurface {
			s.only[module+"/"+p] = true
		}
	}
	return s
}
