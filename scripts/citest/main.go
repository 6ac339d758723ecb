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
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(realMain())
}

// config is a run's settings.
type config struct {
	jobs   int
	matrix []string
	race   bool
	// full runs every test on every tmux of the matrix (see matrixSuite
	// for what runs where without it).
	full    bool
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
	fs.BoolVar(&cfg.full, "full", false, "every test on every tmux of the matrix (default: no agent CLI on the matrix, the oldest release without the end-to-end packages, those between with the packages below the MCP surface only)")
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

func command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}
