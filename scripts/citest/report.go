package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

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

// print reports the suites' counts, the slowest tests and the costliest
// jobs, then every failure, so that a log's last lines name what failed.
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
	sort.Strings(suites)
	for _, s := range suites {
		c := counts[s]
		fmt.Fprintf(w, "citest: %-10s %4d passed, %d failed, %d skipped\n", s, c.pass, c.fail, c.skip)
	}
	slow := slices.Clone(r.tests)
	sort.Slice(slow, func(i, j int) bool { return slow[i].elapsed > slow[j].elapsed })
	fmt.Fprintln(w, "citest: the slowest twenty tests:")
	for _, t := range slow[:min(20, len(slow))] {
		fmt.Fprintf(w, "  %6.1fs  %-10s %-40s %s\n", t.elapsed, t.suite, strings.TrimPrefix(t.pkg, module+"/"), t.test)
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
			strings.TrimPrefix(j.pkg, module+"/"), strings.Join(j.tests, " "))
	}
	// Failures come last: a CI log is read from its end, and what failed
	// must not scroll away behind the statistics.
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
	for _, t := range failed {
		fmt.Fprintf(w, "citest: FAILED %s (%s, tmux %s)\n", t.test, strings.TrimPrefix(t.pkg, module+"/"), t.suite)
	}
	verdict := "ok"
	if len(failed) > 0 || len(r.broken) > 0 {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "citest: %s in %s; job output in %s\n", verdict, wall.Round(time.Second), dir)
}
