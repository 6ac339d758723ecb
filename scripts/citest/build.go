package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
)

// testBinary is one package's test binary of one kind, built once.
type testBinary struct {
	pkg   pkg
	race  bool
	path  string
	ready chan struct{} // closed once built (or failed: err)
	err   error
	// reported: a failed build is reported once, however many jobs use it.
	reported atomic.Bool
}

// build compiles b. -vet=off: go test -c runs vet's test subset on every
// package, twice here (two kinds); make ci's lint runs the whole of go
// vet once.
func (b *testBinary) build(ctx context.Context, goBin string) {
	defer close(b.ready)
	// -ldflags=-w: no DWARF, which only a debugger reads (a panic's
	// stack comes from the symbol table), and whose writing took a fifth
	// of a link's CPU (2.15 CPU s, 1.75 without, for tools' test binary).
	args := []string{"test", "-c", "-vet=off", "-ldflags=-w", "-o", b.path}
	if b.race {
		args = append(args, "-race")
	}
	args = append(args, b.pkg.path)
	if out, err := command(ctx, goBin, args...).CombinedOutput(); err != nil {
		b.err = fmt.Errorf("go test -c %s: %w\n%s", b.pkg.path, err, out)
	}
}

// byWeight orders packages for building: those whose tests take longest
// on a fresh machine (driving agent CLIs, browsers, the binary end to
// end) first, so that their tests start soonest; the rest as listed.
func byWeight(pkgs []pkg) []pkg {
	heavy := []string{"/tools", "/cmd/tmux-mcp", "/supervisor", "/hosts", "/view", "/journal"}
	rank := func(p pkg) int {
		for i, h := range heavy {
			if strings.HasSuffix(p.path, h) {
				return i
			}
		}
		return len(heavy)
	}
	out := slices.Clone(pkgs)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}

// buildTmux builds the matrix's tmux releases in order and marks each
// suite ready.
func buildTmux(ctx context.Context, suites []*suite) {
	for _, s := range suites {
		if s.race {
			continue
		}
		out, err := command(ctx, "scripts/tmux-build", s.name).Output()
		if err == nil {
			f := strings.Fields(string(out))
			if len(f) == 2 {
				s.tmux = f[1]
			} else {
				err = fmt.Errorf("scripts/tmux-build %s printed %q", s.name, out)
			}
		}
		s.err = err
		close(s.ready)
	}
}

// testPackages lists the packages that have tests.
func testPackages(ctx context.Context, goBin string) ([]pkg, error) {
	out, err := command(ctx, goBin, "list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}", "./...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[2] == "0" && f[3] == "0" {
			continue
		}
		pkgs = append(pkgs, pkg{path: f[0], dir: f[1], name: strings.ReplaceAll(strings.TrimPrefix(f[0], module+"/"), "/", "_")})
	}
	return pkgs, nil
}

// listTests returns the tests, examples and fuzz targets (whose seed
// corpora run as tests) of a test binary.
func listTests(ctx context.Context, bin, dir string) ([]string, error) {
	cmd := command(ctx, bin, "-test.list", ".*")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var tests []string
	for _, name := range strings.Fields(string(out)) {
		if !strings.HasPrefix(name, "Benchmark") {
			tests = append(tests, name)
		}
	}
	return tests, nil
}

// deal deals tests into shards of at most n, round robin, so that tests
// written next to each other (often alike in cost) land apart.
func deal(tests []string, n int) [][]string {
	if len(tests) == 0 {
		return nil
	}
	k := (len(tests) + n - 1) / n
	shards := make([][]string, k)
	for i, t := range tests {
		shards[i%k] = append(shards[i%k], t)
	}
	return shards
}
