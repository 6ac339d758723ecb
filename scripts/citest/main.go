// Command citest runs the test suites of `make ci` side by side: the race
// suite on the PATH tmux and every test on each tmux of the version
// matrix, split into small jobs that run at once on a pool of workers.
// Most of a tmux-facing test is waiting on tmux, so one suite at a time
// keeps two cores a quarter busy; run together, they keep them busy.
//
// Each package's test binary is built once per suite kind (with -race, and
// without), two at a time while the tests of those built already run;
// its tests are listed and dealt into shards of a few tests, and
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
	"sync/atomic"
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
	suite  *suite
	pkg    pkg
	binary *testBinary
	tests  []string
	out    string // its JSON
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
	args := []string{"test", "-c", "-vet=off", "-o", b.path}
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

// runnable reports whether j's binary and tmux are built and its race
// shard has run.
func (j *job) runnable() bool {
	select {
	case <-j.binary.ready:
	default:
		return false
	}
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
	if j.binary.err != nil {
		if !j.binary.reported.Swap(true) {
			res.fail("%v", j.binary.err)
		}
		return
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
	args := []string{"tool", "test2json", "-t", "-p", j.pkg.path, j.binary.path, "-test.v=test2json", "-test.run", pattern,
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
