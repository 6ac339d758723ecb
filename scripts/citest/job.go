package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// suite is one run of the whole test suite: the race suite, or one tmux
// of the matrix.
type suite struct {
	name string // "race" or the tmux version
	race bool
	tmux string   // TMUX_MCP_TEST_TMUX, "" for the PATH tmux
	env  []string // more environment for its jobs
	// only, when set, are the packages (import paths) it runs, and skip
	// those it does not; the others are left to the suites that run
	// everything.
	only, skip map[string]bool
	// ready is closed when tmux is built (at once for the PATH tmux);
	// err is set when the build failed.
	ready chan struct{}
	err   error
}

// runs reports whether s runs the tests of package path.
func (s *suite) runs(path string) bool { return (s.only == nil || s.only[path]) && !s.skip[path] }

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
	cmd.Env = append(cmd.Env, j.suite.env...)
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
