// Command citest runs the test suites of `make ci` side by side: the race
// suite on the PATH tmux and every test on each tmux of the version
// matrix, split into small jobs that run at once on a pool of workers.
// Most of a tmux-facing test is waiting on tmux, so one suite at a time
// keeps two cores a quarter busy; run together, they keep them busy.
//
// Each package's test binary is built once per suite kind (with -race, and
// without), its tests listed and dealt into shards of a few tests, and
// each shard runs as `<pkg>.test -test.run '^(A|B)$'` in the package's
// directory, its output turned into JSON by go tool test2json. A matrix
// suite runs with TMUX_MCP_TEST_TMUX set to its tmux, which it builds
// (scripts/tmux-build) while the race suite already runs. Every job's
// JSON is kept; at the end citest names every failing test with its
// output, prints the slowest twenty tests, and exits non-zero on any
// failure.
//
//	go run ./scripts/citest [-jobs N] [-matrix "3.2a 3.4 ..."] [-out dir]
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	os.Exit(realMain())
}

// config is a run's settings.
type config struct {
	jobs    int
	matrix  []string
	race    bool
	perJob  int
	out     string
	goBin   string
	timeout time.Duration
}

func realMain() int {
	var cfg config
	var matrix string
	fs := flag.NewFlagSet("citest", flag.ContinueOnError)
	fs.IntVar(&cfg.jobs, "jobs", 4*runtime.NumCPU(), "test processes at once")
	fs.StringVar(&matrix, "matrix", "", "tmux versions of the matrix (space-separated; built with scripts/tmux-build)")
	fs.BoolVar(&cfg.race, "race", true, "run the race suite on the PATH tmux")
	fs.IntVar(&cfg.perJob, "per-job", 8, "tests per job")
	fs.StringVar(&cfg.out, "out", "", "directory for the jobs' JSON (default: a new temporary one)")
	fs.DurationVar(&cfg.timeout, "timeout", 10*time.Minute, "a job's -test.timeout")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	cfg.matrix = strings.Fields(matrix)
	cfg.goBin = os.Getenv("GO")
	if cfg.goBin == "" {
		cfg.goBin = "go"
	}
	if cfg.out == "" {
		d, err := os.MkdirTemp("", "tmux-mcp-citest.")
		if err != nil {
			fmt.Fprintln(os.Stderr, "citest:", err)
			return 1
		}
		cfg.out = d
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	res, err := run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "citest:", err)
		return 1
	}
	res.print(os.Stdout, time.Since(start), cfg.out)
	if !res.ok() {
		return 1
	}
	return 0
}

// suite is one run of the whole test suite: the race suite, or one tmux
// of the matrix.
type suite struct {
	name string // "race" or the tmux version
	race bool
	tmux string // TMUX_MCP_TEST_TMUX, "" for the PATH tmux
	// ready is closed when tmux is built (at once for the PATH tmux);
	// err is set when the build failed.
	ready chan struct{}
	err   error
}

// pkg is one package with tests.
type pkg struct {
	path string // import path
	dir  string
	name string // for file names
}

// job is one shard of one package of one suite.
type job struct {
	suite *suite
	pkg   pkg
	bin   string
	tests []string
	out   string // its JSON
	// A race job records which of its tests start tmux (tmuxtest's
	// RecordEnv) into record, and closes done; the same shard's matrix
	// jobs wait for it (after) and run only those tests: a test that
	// never starts tmux is the same on every tmux.
	record string
	done   chan struct{}
	users  []string
	after  *job
}

// testResult is one top-level test's outcome in one suite.
type testResult struct {
	suite, pkg, test string
	pass, skip       bool
	elapsed          float64
	output           []string
}

// results are every test's outcome and every job that failed to run.
type results struct {
	mu     sync.Mutex
	tests  []testResult
	jobs   []jobCost
	broken []string // jobs, builds and suites that failed outside a test
}

// jobCost is what one job cost: its wall time, and the CPU time of its
// test process and of every process it reaped (the tmux servers its
// tests started, and through them their panes' programs).
type jobCost struct {
	suite, pkg string
	tests      []string
	wall, cpu  time.Duration
}

func (r *results) ok() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.broken) > 0 {
		return false
	}
	for _, t := range r.tests {
		if !t.pass && !t.skip {
			return false
		}
	}
	return true
}

func (r *results) fail(format string, args ...any) {
	r.mu.Lock()
	r.broken = append(r.broken, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// run builds, lists, shards and runs everything.
func run(ctx context.Context, cfg config) (*results, error) {
	pkgs, err := testPackages(ctx, cfg.goBin)
	if err != nil {
		return nil, err
	}
	var suites []*suite
	if cfg.race {
		s := &suite{name: "race", race: true, ready: make(chan struct{})}
		close(s.ready)
		suites = append(suites, s)
	}
	for _, v := range cfg.matrix {
		suites = append(suites, &suite{name: v, ready: make(chan struct{})})
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
	bins := map[bool]map[string]string{} // race -> package -> test binary
	var builds []func() error
	for race := range kinds {
		bins[race] = map[string]string{}
		for _, p := range pkgs {
			bin := filepath.Join(binDir, map[bool]string{true: "race", false: "plain"}[race], p.name+".test")
			bins[race][p.path] = bin
			// -vet=off: go test -c runs vet's test subset on every
			// package, twice here (two kinds); make ci's lint runs the
			// whole of go vet once.
			args := []string{"test", "-c", "-vet=off", "-o", bin}
			if race {
				args = append(args, "-race")
			}
			args = append(args, p.path)
			builds = append(builds, func() error {
				if out, err := command(ctx, cfg.goBin, args...).CombinedOutput(); err != nil {
					return fmt.Errorf("go test -c %s: %w\n%s", p.path, err, out)
				}
				return nil
			})
		}
	}
	if err := inParallel(runtime.NumCPU(), builds); err != nil {
		return nil, err
	}
	// Shards: the same for every suite; each suite's jobs are queued in
	// turn, so that a matrix suite waiting for its tmux does not hold the
	// others up.
	var jobs []*job
	for _, p := range pkgs {
		anyBin := bins[suites[0].race][p.path]
		tests, err := listTests(ctx, anyBin, p.dir)
		if err != nil {
			return nil, fmt.Errorf("list tests of %s: %w", p.path, err)
		}
		for _, shard := range deal(tests, cfg.perJob) {
			var race *job
			for _, s := range suites {
				j := &job{suite: s, pkg: p, bin: bins[s.race][p.path], tests: shard, after: race}
				if s.race {
					race, j.done = j, make(chan struct{})
				}
				jobs = append(jobs, j)
			}
		}
	}
	// Longer shards first within each suite is unknown on a fresh
	// machine; the race suite (CPU-heavy) goes first, then the matrix.
	sort.SliceStable(jobs, func(i, j int) bool { return suiteIndex(suites, jobs[i].suite) < suiteIndex(suites, jobs[j].suite) })
	for i, j := range jobs {
		j.out = filepath.Join(cfg.out, j.suite.name, fmt.Sprintf("%s-%03d.json", j.pkg.name, i))
		if j.done != nil {
			j.record = strings.TrimSuffix(j.out, ".json") + ".tmux"
		}
	}
	env := append(os.Environ(), "TMUX_MCP_TEST_BIN="+tmuxMCP)
	// The dispatcher hands a worker the first job whose tmux is built and
	// whose race shard has run, so that no worker sits waiting.
	queue := make(chan *job)
	wake := make(chan struct{}, 1)
	poke := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
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
	pending := jobs
	for len(pending) > 0 && ctx.Err() == nil {
		i := slices.IndexFunc(pending, func(j *job) bool { return j.runnable() })
		if i < 0 {
			select {
			case <-wake:
			case <-ctx.Done():
			}
			continue
		}
		j := pending[i]
		pending = slices.Delete(pending, i, i+1)
		select {
		case queue <- j:
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

// inParallel runs fs, n at a time, and returns their errors joined.
func inParallel(n int, fs []func() error) error {
	sem := make(chan struct{}, n)
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// runnable reports whether j's tmux is built and its race shard has run.
func (j *job) runnable() bool {
	select {
	case <-j.suite.ready:
	default:
		return false
	}
	if j.after != nil {
		select {
		case <-j.after.done:
		default:
			return false
		}
	}
	return true
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

// runJob runs one shard and records its tests.
func runJob(ctx context.Context, cfg config, j *job, env []string, res *results) {
	if j.done != nil {
		defer close(j.done)
	}
	select {
	case <-j.suite.ready:
	case <-ctx.Done():
		return
	}
	if j.suite.err != nil {
		return // reported once for the suite
	}
	if j.after != nil {
		select {
		case <-j.after.done:
		case <-ctx.Done():
			return
		}
		j.tests = j.after.users
		if len(j.tests) == 0 {
			return
		}
	}
	if j.record != "" {
		if err := os.MkdirAll(j.record, 0o755); err != nil {
			res.fail("%s: %v", j.record, err)
			return
		}
		env = append(slices.Clone(env), "TMUX_MCP_TEST_RECORD_DIR="+j.record)
	}
	if err := os.MkdirAll(filepath.Dir(j.out), 0o755); err != nil {
		res.fail("%s: %v", j.out, err)
		return
	}
	pattern := "^(" + strings.Join(j.tests, "|") + ")$"
	args := []string{"tool", "test2json", "-t", "-p", j.pkg.path, j.bin, "-test.v=test2json", "-test.run", pattern,
		"-test.count=1", "-test.timeout=" + cfg.timeout.String()}
	cmd := command(ctx, cfg.goBin, args...)
	cmd.Dir = j.pkg.dir
	cmd.Env = env
	if j.suite.tmux != "" {
		cmd.Env = append(slices.Clone(env), "TMUX_MCP_TEST_TMUX="+j.suite.tmux)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	began := time.Now()
	runErr := cmd.Run()
	cost := jobCost{suite: j.suite.name, pkg: j.pkg.path, tests: j.tests, wall: time.Since(began)}
	if ps := cmd.ProcessState; ps != nil {
		cost.cpu = ps.UserTime() + ps.SystemTime()
	}
	if err := os.WriteFile(j.out, out.Bytes(), 0o644); err != nil {
		res.fail("%s: %v", j.out, err)
	}
	tests := parseJSON(&out, j.suite.name, j.pkg.path)
	if j.record != "" {
		for _, name := range j.tests {
			if _, err := os.Stat(filepath.Join(j.record, name)); err == nil {
				j.users = append(j.users, name)
			}
		}
	}
	res.mu.Lock()
	res.tests = append(res.tests, tests...)
	res.jobs = append(res.jobs, cost)
	res.mu.Unlock()
	// A test that panics or times out ends its shard: the tests after it
	// never ran, and a failure outside any test has no test to carry it.
	var missing []string
	failed := false
	for _, name := range j.tests {
		i := slices.IndexFunc(tests, func(t testResult) bool { return t.test == name })
		if i < 0 {
			missing = append(missing, name)
		} else if !tests[i].pass && !tests[i].skip {
			failed = true
		}
	}
	if runErr != nil && (!failed || len(missing) > 0) {
		res.fail("%s %s: %v (tests not run: %s) %s", j.suite.name, j.pkg.path, runErr, strings.Join(missing, " "),
			strings.TrimSpace(stderr.String()))
	}
}

// parseJSON reads test2json output: each top-level test's outcome,
// elapsed time and output.
func parseJSON(r io.Reader, suite, pkgPath string) []testResult {
	type event struct {
		Action  string
		Test    string
		Elapsed float64
		Output  string
	}
	byName := map[string]*testResult{}
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Test == "" {
			continue
		}
		top, _, _ := strings.Cut(e.Test, "/")
		t := byName[top]
		if t == nil {
			t = &testResult{suite: suite, pkg: pkgPath, test: top}
			byName[top] = t
			order = append(order, top)
		}
		switch e.Action {
		case "output":
			t.output = append(t.output, e.Output)
		case "pass", "fail", "skip":
			if e.Test == top {
				t.pass, t.skip, t.elapsed = e.Action == "pass", e.Action == "skip", e.Elapsed
			}
		}
	}
	out := make([]testResult, 0, len(order))
	for _, n := range order {
		out = append(out, *byName[n])
	}
	return out
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
		pkgs = append(pkgs, pkg{path: f[0], dir: f[1], name: strings.ReplaceAll(strings.TrimPrefix(f[0], "github.com/tmux-mcp/tmux-mcp/"), "/", "_")})
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

func command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// print reports failures, the suites' counts and the slowest tests.
func (r *results) print(w io.Writer, wall time.Duration, dir string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	type count struct{ pass, fail, skip int }
	counts := map[string]*count{}
	var suites []string
	var failed []testResult
	for _, t := range r.tests {
		c := counts[t.suite]
		if c == nil {
			c = &count{}
			counts[t.suite] = c
			suites = append(suites, t.suite)
		}
		switch {
		case t.skip:
			c.skip++
		case t.pass:
			c.pass++
		default:
			c.fail++
			failed = append(failed, t)
		}
	}
	for _, t := range failed {
		fmt.Fprintf(w, "--- FAIL: %s (%s, tmux %s, %.1fs)\n", t.test, t.pkg, t.suite, t.elapsed)
		lines := t.output
		if len(lines) > 60 {
			lines = append([]string{"    [... " + fmt.Sprint(len(lines)-60) + " lines ...]\n"}, lines[len(lines)-60:]...)
		}
		for _, l := range lines {
			fmt.Fprint(w, "    ", l)
		}
	}
	for _, b := range r.broken {
		fmt.Fprintln(w, "BROKEN:", b)
	}
	sort.Strings(suites)
	for _, s := range suites {
		c := counts[s]
		fmt.Fprintf(w, "citest: %-10s %4d passed, %d failed, %d skipped\n", s, c.pass, c.fail, c.skip)
	}
	slow := slices.Clone(r.tests)
	sort.Slice(slow, func(i, j int) bool { return slow[i].elapsed > slow[j].elapsed })
	fmt.Fprintln(w, "citest: the slowest twenty tests:")
	for _, t := range slow[:min(20, len(slow))] {
		fmt.Fprintf(w, "  %6.1fs  %-10s %-40s %s\n", t.elapsed, t.suite, strings.TrimPrefix(t.pkg, "github.com/tmux-mcp/tmux-mcp/"), t.test)
	}
	// CPU is what load takes away: the jobs that spend most of it are
	// where make ci's time on a busy machine goes.
	cpu := map[string]time.Duration{}
	var total time.Duration
	for _, j := range r.jobs {
		cpu[j.suite] += j.cpu
		total += j.cpu
	}
	fmt.Fprintf(w, "citest: CPU %s in all (the jobs' processes and what they reaped):", total.Round(time.Second))
	for _, s := range suites {
		fmt.Fprintf(w, " %s %s", s, cpu[s].Round(time.Second))
	}
	fmt.Fprintln(w)
	costly := slices.Clone(r.jobs)
	sort.Slice(costly, func(i, j int) bool { return costly[i].cpu > costly[j].cpu })
	fmt.Fprintln(w, "citest: the ten jobs that used the most CPU (CPU, wall):")
	for _, j := range costly[:min(10, len(costly))] {
		fmt.Fprintf(w, "  %6.1fs %6.1fs  %-10s %-20s %s\n", j.cpu.Seconds(), j.wall.Seconds(), j.suite,
			strings.TrimPrefix(j.pkg, "github.com/tmux-mcp/tmux-mcp/"), strings.Join(j.tests, " "))
	}
	verdict := "ok"
	if len(failed) > 0 || len(r.broken) > 0 {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "citest: %s in %s; job output in %s\n", verdict, wall.Round(time.Second), dir)
}
