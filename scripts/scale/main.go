// Command scale measures tmux-mcp with many agents on one host: one
// tmux-mcp (the built binary) serving streamable HTTP on a tmux server of
// its own, N concurrent MCP clients (agents) each polling its own panes
// with capture_pane and waiting on them with run_command and
// wait_for_text, over a growing number of sessions, with and without
// panes that print continuously. Per step it records call latency, the
// CPU and memory of tmux-mcp and of the tmux server, the tmux commands
// tmux-mcp issued per call, errors and stale captures; it writes
// report.json and report.html (charts) into -out, prints a Markdown table,
// and exits non-zero when a bound is broken (verdict.go).
//
// Every run uses its own tmux server (a socket in a private directory)
// and ends every process it started, by PID. Run it with `make scale`,
// `make scale-long` or `make scale-smoke`; docs/scale.md explains the
// figures.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// level is a number of sessions and of panes in each.
type level struct {
	sessions, panes int
}

// config is the run's settings.
type config struct {
	bin     string
	tmux    string // tmux binary, "" for the PATH's
	out     string
	profile string
	levels  []level
	agents  []int
	warm    time.Duration // per step, not measured
	measure time.Duration // per step
	hz      float64       // calls per second per agent
	// noisePeriod is how often each printing pane prints a line.
	noisePeriod time.Duration
	variants    string   // "silent", "printing" or both, comma-separated
	mcpArgs     []string // more tmux-mcp flags
	keep        bool
	bounds      Bounds
}

func (c config) maxAgents() int {
	n := 0
	for _, a := range c.agents {
		n = max(n, a)
	}
	return n
}

// fleetCommands is the tmux commands per agent call the harness sizes
// tmux-mcp's server rate for: make scale measured 2.3 to 4.8 (marker
// commands and uncached captures; a cached capture sends none).
const fleetCommands = 5

// serverRate is the --server-rate the fleet needs: the largest agent
// count at hz calls a second, fleetCommands each, and never below
// tmux-mcp's default of 200.
func (c config) serverRate() float64 {
	return max(200, float64(c.maxAgents())*c.hz*fleetCommands)
}

// profiles: smoke (~25 s, a check that the harness works), default
// (`make scale`, 8 to 256 sessions, about 7 minutes on 2 cores) and long
// (8 to 512 sessions and then 512 of 4 panes, 2,048 panes in all; longer
// steps; about 25 minutes).
var profiles = map[string]config{
	"smoke": {levels: []level{{8, 1}}, agents: []int{1, 8}, warm: time.Second, measure: 4 * time.Second},
	"default": {levels: []level{{8, 1}, {64, 1}, {256, 1}}, agents: []int{1, 8, 32, 64},
		warm: 2 * time.Second, measure: 8 * time.Second},
	"long": {levels: []level{{8, 1}, {32, 1}, {64, 1}, {128, 1}, {256, 1}, {512, 1}, {512, 4}}, agents: []int{1, 8, 32, 64},
		warm: 3 * time.Second, measure: 15 * time.Second},
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == printTicksArg {
		os.Exit(printTicks(os.Args[2]))
	}
	os.Exit(realMain())
}

func realMain() int {
	var cfg config
	var mcpArgs string
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	fs.StringVar(&cfg.bin, "bin", "bin/tmux-mcp", "the tmux-mcp binary")
	fs.StringVar(&cfg.tmux, "tmux", os.Getenv("TMUX_MCP_TEST_TMUX"), "tmux binary (default: $TMUX_MCP_TEST_TMUX, else the PATH's)")
	fs.StringVar(&cfg.out, "out", "scale-report", "directory for report.json and report.html")
	fs.StringVar(&cfg.profile, "profile", "default", "smoke, default or long")
	fs.Float64Var(&cfg.hz, "hz", 2, "calls per second per agent")
	fs.DurationVar(&cfg.noisePeriod, "noise-period", 500*time.Millisecond, "how often each printing pane prints a line")
	fs.StringVar(&mcpArgs, "mcp-args", "", "more tmux-mcp serve flags, space-separated (e.g. --server-rate 400)")
	p99 := fs.Float64("p99-bound", 0, "capture_pane p99 bound per step, ms (default: one polling period, 1000/hz)")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the private directory (socket, journal, tmux-mcp.log)")
	agents := fs.String("agents", "", "agent counts, comma-separated (default: the profile's)")
	levels := fs.String("levels", "", "sessions levels, comma-separated SESSIONSxPANES, e.g. 8x1,512x4 (default: the profile's)")
	measure := fs.Duration("measure", 0, "measured time per step (default: the profile's)")
	fs.StringVar(&cfg.variants, "variants", "silent,printing", "which steps run at each level: silent (no pane prints), printing (some panes print), or both")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	p, ok := profiles[cfg.profile]
	if !ok {
		fmt.Fprintf(os.Stderr, "scale: unknown profile %q (smoke, default, long)\n", cfg.profile)
		return 2
	}
	cfg.levels, cfg.agents, cfg.warm, cfg.measure = p.levels, p.agents, p.warm, p.measure
	cfg.mcpArgs = strings.Fields(mcpArgs)
	cfg.bounds = BoundsFor(cfg.hz)
	if *p99 > 0 {
		cfg.bounds.CaptureP99Ms = *p99
	}
	if *measure > 0 {
		cfg.measure = *measure
	}
	var err error
	if *agents != "" {
		if cfg.agents, err = parseAgents(*agents); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	if *levels != "" {
		if cfg.levels, err = parseLevels(*levels); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	if _, err := os.Stat(cfg.bin); err != nil {
		fmt.Fprintf(os.Stderr, "scale: %v (build it with make build)\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep := scale(ctx, cfg)
	if err := writeFiles(cfg.out, rep); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Print(markdown(rep))
	fmt.Printf("\nreport: %s/report.html (%.0f s)\n", cfg.out, rep.Seconds)
	if !rep.Passed {
		return 1
	}
	return 0
}

// scale runs every step and judges them.
func scale(ctx context.Context, cfg config) *Report {
	rep := &Report{Started: time.Now(), Profile: cfg.profile, Host: hostInfo(cfg), Bounds: cfg.bounds,
		Settings: map[string]any{"agents": cfg.agents, "hz_per_agent": cfg.hz, "warm_s": cfg.warm.Seconds(),
			"measure_s": cfg.measure.Seconds(), "noise_period_ms": cfg.noisePeriod.Milliseconds(),
			"marker_every_calls": markerEvery, "mcp_args": cfg.mcpArgs, "server_rate": cfg.serverRate()}}
	h, err := start(ctx, cfg)
	if err == nil {
		err = h.dialAgents(ctx, cfg.maxAgents())
	}
	if err == nil {
		err = runLevels(ctx, cfg, h, rep)
	}
	if err != nil {
		rep.Error = err.Error()
		fmt.Fprintln(os.Stderr, err)
	}
	if h != nil && h.admin != nil {
		if hl, herr := h.health(ctx); herr == nil {
			rep.Restarts, rep.LastDeath = hl.Restarts, strings.TrimSpace(hl.LastDeathCause+" "+hl.LastDeath)
		}
	}
	if h != nil {
		rep.Leaked = h.cleanup()
		rep.log = h.stderr.String()
	}
	rep.Seconds = time.Since(rep.Started).Seconds()
	rep.Host.LoadEnd = loadAvg()
	rep.Verdicts = Judge(rep.Steps, rep.Restarts, rep.LastDeath, rep.Leaked, cfg.bounds)
	if rep.Error != "" {
		rep.Verdicts = append(rep.Verdicts, loadtest.Verdict{Name: "harness", Detail: rep.Error})
	}
	rep.Passed = loadtest.Passed(rep.Verdicts)
	return rep
}

// runLevels grows the sessions level by level; at each, it measures every
// agent count without and then with printing panes.
func runLevels(ctx context.Context, cfg config, h *harness, rep *Report) error {
	maxA := cfg.maxAgents()
	noiseCmd, err := tickCommand(cfg.noisePeriod)
	if err != nil {
		return err
	}
	for _, lv := range cfg.levels {
		t := time.Now()
		if err := h.ensureSessions(ctx, lv.sessions, lv.panes); err != nil {
			return err
		}
		work, err := h.windows(ctx, "w", maxA, lv.sessions, "")
		if err != nil {
			return err
		}
		if err := h.killWindows(ctx, "n"); err != nil {
			return err
		}
		progress(h, "level %d sessions x%d: set up in %.1fs", lv.sessions, lv.panes, time.Since(t).Seconds())
		for _, output := range []bool{false, true} {
			if !strings.Contains(cfg.variants, map[bool]string{false: "silent", true: "printing"}[output]) {
				continue
			}
			var noise []string
			if output {
				if noise, err = h.windows(ctx, "n", maxA, lv.sessions, noiseCmd); err != nil {
					return err
				}
			}
			for _, n := range cfg.agents {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				spec := StepSpec{Sessions: lv.sessions, PanesPerSession: lv.panes, Agents: n, Output: output}
				for i, a := range h.agents[:n] {
					a.work, a.noise, a.lastTick = work[i], "", 0
					if output {
						a.noise = noise[i]
					}
				}
				s, err := runStep(ctx, cfg, h, spec)
				if err != nil {
					return err
				}
				rep.Steps = append(rep.Steps, s)
				progress(h, "%s: %d calls, capture p50 %.2f ms p99 %.2f ms, %.0f us tmux-mcp CPU/call, %.2f tmux cmds/call, errors %d, stale %d",
					spec.label(), s.Calls, s.Captures.P50, s.Captures.P99, s.MCPCPUusPerCall, s.CommandsPerCall, s.errorCount(), len(s.Stale))
			}
		}
		if err := h.killWindows(ctx, "n"); err != nil {
			return err
		}
	}
	return nil
}

// runStep runs the first spec.Agents agents for the warm-up and the
// measured stretch.
func runStep(ctx context.Context, cfg config, h *harness, spec StepSpec) (Step, error) {
	rec := &recorder{}
	halt := make(chan struct{})
	period := time.Duration(float64(time.Second) / cfg.hz)
	var wg sync.WaitGroup
	for i, a := range h.agents[:spec.Agents] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.run(ctx, halt, rec, period, period*time.Duration(i)/time.Duration(spec.Agents))
		}()
	}
	// The agents finish their calls in flight (not counted: the recorder
	// is closed), so that no call is cut off in tmux-mcp.
	stop := func() { close(halt); wg.Wait() }
	select {
	case <-time.After(cfg.warm):
	case <-ctx.Done():
		stop()
		return Step{}, ctx.Err()
	}
	rec.reset()
	a, err := h.snapshot(ctx)
	if err != nil {
		stop()
		return Step{}, err
	}
	select {
	case <-time.After(cfg.measure):
	case <-ctx.Done():
	}
	got := rec.close()
	b, err := h.snapshot(ctx)
	stop()
	if err != nil {
		return Step{}, err
	}
	return summarise(spec, h.paneCount(ctx), got, a, b), nil
}

// progress prints a line to stderr with the run's clock.
func progress(h *harness, format string, a ...any) {
	fmt.Fprintf(os.Stderr, "scale %6.1fs "+format+"\n", append([]any{h.since()}, a...)...)
}

// hostInfo describes the machine and the tools.
func hostInfo(cfg config) Host {
	host := Host{CPUs: runtime.NumCPU(), Go: runtime.Version(), Tmux: "tmux (PATH)"}
	if cfg.tmux != "" {
		host.Tmux = cfg.tmux
	}
	host.LoadStart = loadAvg()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if v, err := (&tmux.Exec{Binary: cfg.tmux, Socket: tmux.Socket{Name: "unused"}}).BinaryVersion(ctx); err == nil { // contacts no server
		host.Tmux = v.Raw
	}
	if v, err := exec.CommandContext(ctx, cfg.bin, "version").Output(); err == nil {
		host.TmuxMCP = loadtest.FirstLine(strings.TrimSpace(string(v)))
	}
	return host
}

// loadAvg is the 1, 5 and 15 minute load average.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// parseAgents reads "1,8,32".
func parseAgents(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("scale: -agents: %q is not a positive count", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseLevels reads "8x1,512x4" (sessions x panes per session; "x1" may
// be left out).
func parseLevels(s string) ([]level, error) {
	var out []level
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		ss, ps, found := strings.Cut(f, "x")
		if !found {
			ps = "1"
		}
		n, err1 := strconv.Atoi(ss)
		p, err2 := strconv.Atoi(ps)
		if err1 != nil || err2 != nil || n < 1 || p < 1 {
			return nil, fmt.Errorf("scale: -levels: %q is not SESSIONSxPANES", f)
		}
		out = append(out, level{n, p})
	}
	return out, nil
}
