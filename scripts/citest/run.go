package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

// run builds, lists, shards and runs everything.
func run(ctx context.Context, cfg config) (*results, error) {
	pkgs, err := testPackages(ctx, cfg.goBin)
	if err != nil {
		return nil, err
	}
	if err := checkLists(pkgs); err != nil {
		return nil, err
	}
	var suites []*suite
	if cfg.race {
		s := &suite{name: "race", race: true, ready: make(chan struct{})}
		close(s.ready)
		suites = append(suites, s)
	}
	for i, v := range cfg.matrix {
		suites = append(suites, matrixSuite(v, i, len(cfg.matrix), cfg.full))
	}
	res := &results{}
	// The matrix's tmux builds run one after another beside everything
	// else (each is make -j2).
	go buildTmux(ctx, suites)
	// Test binaries: with -race for the race suite, without for the
	// matrix; the tmux-mcp binary the end-to-end tests drive is built once.
	binDir := filepath.Join(cfg.out, "bin")
	tmuxMCP := filepath.Join(binDir, "tmux-mcp")
	if out, err := command(ctx, cfg.goBin, "build", "-o", tmuxMCP, "./cmd/tmux-mcp").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/tmux-mcp: %w\n%s", err, out)
	}
	kinds := map[bool]bool{}
	for _, s := range suites {
		kinds[s.race] = true
	}
	// Test binaries are built two at a time while the tests of those
	// already built run: the tests wait on tmux much of the time, and the
	// compiles take what CPU they leave (on a cold machine the compiles
	// are minutes). The first kind's binaries come first, the packages
	// with the longest tests first among them (order), so that those
	// start soonest.
	first := suites[0].race
	bins := map[bool]map[string]*testBinary{} // race -> package -> test binary
	var builds []*testBinary
	for _, race := range []bool{first, !first} {
		if !kinds[race] {
			continue
		}
		bins[race] = map[string]*testBinary{}
		for _, p := range byWeight(pkgs) {
			b := &testBinary{pkg: p, race: race, ready: make(chan struct{}),
				path: filepath.Join(binDir, map[bool]string{true: "race", false: "plain"}[race], p.name+".test")}
			bins[race][p.path] = b
			builds = append(builds, b)
		}
	}
	wake := make(chan struct{}, 1)
	poke := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	go func() {
		sem := make(chan struct{}, runtime.NumCPU())
		for _, b := range builds {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				b.build(ctx, cfg.goBin)
				poke()
			}()
		}
	}()
	// Shards: the same for every suite, dealt once a package's first
	// binary can list its tests; each suite's jobs are queued in turn, so
	// that a matrix suite waiting for its tmux does not hold the others
	// up; the race suite (CPU-heavy) goes first, then the matrix.
	listed := make(chan []*job)
	for _, p := range pkgs {
		go func() {
			b := bins[first][p.path]
			select {
			case <-b.ready:
			case <-ctx.Done():
				listed <- nil
				return
			}
			if b.err != nil {
				res.fail("%v", b.err)
				listed <- nil
				return
			}
			tests, err := listTests(ctx, b.path, p.dir)
			if err != nil {
				res.fail("list tests of %s: %v", p.path, err)
				listed <- nil
				return
			}
			var jobs []*job
			for _, shard := range deal(tests, cfg.perJob) {
				var race *job
				for _, s := range suites {
					if !s.runs(p.path) {
						continue
					}
					j := &job{suite: s, pkg: p, binary: bins[s.race][p.path], tests: shard, after: race}
					if s.race {
						race, j.done = j, make(chan struct{})
					}
					jobs = append(jobs, j)
				}
			}
			listed <- jobs
		}()
	}
	env := append(os.Environ(), "TMUX_MCP_TEST_BIN="+tmuxMCP)
	// The dispatcher hands a worker the first job whose binary and tmux
	// are built and whose race shard has run, so that no worker sits
	// waiting.
	queue := make(chan *job)
	var wg sync.WaitGroup
	for range cfg.jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				runJob(ctx, cfg, j, env, res)
				poke()
			}
		}()
	}
	for _, s := range suites {
		go func() {
			<-s.ready
			poke()
		}()
	}
	var pending []*job
	unlisted, n := len(pkgs), 0
	add := func(jobs []*job) {
		unlisted--
		for _, j := range jobs {
			j.out = filepath.Join(cfg.out, j.suite.name, fmt.Sprintf("%s-%03d.json", j.pkg.name, n))
			n++
			if j.done != nil {
				j.record = strings.TrimSuffix(j.out, ".json") + ".tmux"
			}
		}
		pending = append(pending, jobs...)
		sort.SliceStable(pending, func(a, b int) bool {
			return suiteIndex(suites, pending[a].suite) < suiteIndex(suites, pending[b].suite)
		})
	}
	for (len(pending) > 0 || unlisted > 0) && ctx.Err() == nil {
		i := slices.IndexFunc(pending, func(j *job) bool { return j.runnable() })
		if i < 0 {
			select {
			case <-wake:
			case jobs := <-listed:
				add(jobs)
			case <-ctx.Done():
			}
			continue
		}
		j := pending[i]
		pending = slices.Delete(pending, i, i+1)
		select {
		case queue <- j:
		case jobs := <-listed:
			add(jobs)
			pending = append([]*job{j}, pending...) // offered again first
			sort.SliceStable(pending, func(a, b int) bool {
				return suiteIndex(suites, pending[a].suite) < suiteIndex(suites, pending[b].suite)
			})
		case <-ctx.Done():
		}
	}
	close(queue)
	wg.Wait()
	for _, s := range suites {
		if s.err != nil {
			res.fail("tmux %s: %v", s.name, s.err)
		}
	}
	return res, ctx.Err()
}

func suiteIndex(suites []*suite, s *suite) int { return slices.Index(suites, s) }
