// Command repro is the soak and fault harness for tmux-mcp. It reproduces
// the polling incident (a daemon capturing a silent pane once a second
// until "no server running") on an isolated tmux server: raw `tmux
// capture-pane` subprocesses against the same polling through the built
// tmux-mcp binary over MCP stdio, at 1 Hz and 100 Hz; then simulated
// agents working concurrently while faults are injected on a schedule
// (kill -9, socket deleted, SIGSTOP, a stuck control client, the last pane
// exiting with exit-empty on, a small fd limit). It samples the server and
// tmux-mcp every second, judges the run against stated bounds, and writes
// report.json, series.csv and a self-contained report.html with charts.
// It exits non-zero when a verdict fails.
//
// Every run has its own tmux servers under a private directory, its own
// journal, and cleans up what it started. Run it with `make soak`, `make
// soak-long` or `make soak-smoke` (scripts/soak); see the README's "Soak
// harness" section for how to read the report.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// config is the run's settings.
type config struct {
	bin       string
	out       string
	profile   string
	idle      time.Duration // idle baseline
	phase     time.Duration // each incident phase
	hzLow     float64
	hzHigh    float64
	faults    []string
	gap       time.Duration // mixed workload between faults
	agents    int
	hungAfter time.Duration
	stuckFor  time.Duration
	fdLimit   int
	keep      bool
}

// profiles are the durations of smoke (CI), short (make soak) and long
// (make soak-long) runs.
var profiles = map[string]config{
	"smoke": {idle: time.Second, phase: 1500 * time.Millisecond, gap: 500 * time.Millisecond, agents: 2, hungAfter: 2 * time.Second, stuckFor: 2 * time.Second},
	"short": {idle: 4 * time.Second, phase: 6 * time.Second, gap: 2 * time.Second, agents: 3, hungAfter: 3 * time.Second, stuckFor: 3 * time.Second},
	"long":  {idle: 30 * time.Second, phase: 150 * time.Second, gap: 20 * time.Second, agents: 3, hungAfter: 3 * time.Second, stuckFor: 10 * time.Second},
}

func main() {
	os.Exit(realMain())
}

func realMain() int {
	var cfg config
	var faults string
	fs := flag.NewFlagSet("repro", flag.ContinueOnError)
	fs.StringVar(&cfg.bin, "bin", "bin/tmux-mcp", "the tmux-mcp binary to drive")
	fs.StringVar(&cfg.out, "out", "soak-report", "directory for report.json, series.csv and report.html")
	fs.StringVar(&cfg.profile, "profile", "short", "smoke (~20 s), short (~60-90 s) or long (10+ minutes)")
	fs.DurationVar(&cfg.phase, "phase", 0, "length of each polling phase (default: the profile's)")
	fs.Float64Var(&cfg.hzLow, "hz-low", 1, "the incident's polling rate")
	fs.Float64Var(&cfg.hzHigh, "hz-high", 100, "the aggressive polling rate")
	fs.StringVar(&faults, "faults", strings.Join(AllFaults, ","), "faults to inject, in order")
	fs.IntVar(&cfg.fdLimit, "fd-limit", 32, "RLIMIT_NOFILE of the fd-limit fault's server")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the private directory (sockets, journal, tmux-mcp logs)")
	render := fs.String("render", "", "only write report.html and series.csv again from this report.json (into -out)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	if *render != "" {
		if err := rerender(*render, cfg.out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	p, ok := profiles[cfg.profile]
	if !ok {
		fmt.Fprintf(os.Stderr, "repro: unknown profile %q (smoke, short, long)\n", cfg.profile)
		return 2
	}
	cfg.idle, cfg.gap, cfg.agents, cfg.hungAfter, cfg.stuckFor = p.idle, p.gap, p.agents, p.hungAfter, p.stuckFor
	if cfg.phase == 0 {
		cfg.phase = p.phase
	}
	for _, f := range strings.Split(faults, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !slices.Contains(AllFaults, f) {
			fmt.Fprintf(os.Stderr, "repro: unknown fault %q (%s)\n", f, strings.Join(AllFaults, ", "))
			return 2
		}
		cfg.faults = append(cfg.faults, f)
	}
	if _, err := os.Stat(cfg.bin); err != nil {
		fmt.Fprintf(os.Stderr, "repro: %v (build it with make build)\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, err := soak(ctx, cfg)
	if rep != nil {
		if werr := writeFiles(cfg.out, rep); werr != nil {
			fmt.Fprintln(os.Stderr, werr)
			return 1
		}
		printSummary(os.Stderr, rep, cfg.out)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "repro: %v\n", err)
		return 1
	}
	if !rep.Passed {
		return 1
	}
	return 0
}

// rerender writes the report files again from a report.json.
func rerender(path, dir string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("repro: %s: %w", path, err)
	}
	return writeFiles(dir, &rep)
}

// soak runs the whole harness. It returns a report whenever set-up got far
// enough to measure anything, even with an error.
func soak(ctx context.Context, cfg config) (*Report, error) {
	r, err := newRun(cfg)
	if err != nil {
		return nil, err
	}
	rep := &Report{Started: r.t0, Profile: cfg.profile, Bounds: DefaultBounds(float64(cfg.hungAfter.Milliseconds()))}
	rep.Host = hostInfo(cfg.bin)
	rep.Settings = map[string]any{"idle_s": cfg.idle.Seconds(), "phase_s": cfg.phase.Seconds(), "hz_low": cfg.hzLow,
		"hz_high": cfg.hzHigh, "faults": cfg.faults, "gap_s": cfg.gap.Seconds(), "agents": cfg.agents,
		"hung_after_s": cfg.hungAfter.Seconds(), "stuck_client_s": cfg.stuckFor.Seconds(), "fd_limit": cfg.fdLimit,
		"tmux_mcp_env": []string{"TMUX_MCP_SOCKET_PATH=<private>/main", "TMUX_MCP_TMUX_CONFIG=/dev/null",
			"TMUX_MCP_JOURNAL=<private>/journal.db", "TMUX_MCP_HUNG_AFTER=" + cfg.hungAfter.String()}}
	runErr := r.body(ctx, rep)
	rep.Leaked = r.cleanup()
	r.mu.Lock()
	rep.Samples = r.samples
	rep.Notes = append(rep.Notes, r.notes...)
	r.mu.Unlock()
	rep.Seconds = r.since(time.Now())
	rep.Verdicts = Judge(rep.Phases, append(append([]Fault(nil), rep.Faults...), rep.Unplanned...), rep.Leaked, rep.Bounds)
	if runErr != nil {
		rep.Verdicts = append(rep.Verdicts, loadtest.Verdict{Name: "run completed", Pass: false, Detail: runErr.Error()})
	}
	rep.Passed = loadtest.Passed(rep.Verdicts)
	return rep, runErr
}

// body is the run between set-up and clean-up.
func (r *run) body(ctx context.Context, rep *Report) error {
	progress := newProgress(os.Stderr)
	progress.line("setting up: tmux-mcp, targets, 50,000 lines of history")
	if err := r.setup(ctx); err != nil {
		return err
	}
	sctx, stopSampler := context.WithCancel(ctx)
	samplerDone := make(chan struct{})
	go func() {
		defer close(samplerDone)
		r.sampleLoop(sctx, progress)
	}()
	defer func() {
		stopSampler()
		<-samplerDone
		progress.done()
	}()

	silent := r.panes[targetSilent]
	idle := r.runPhase(ctx, "idle", "idle", 0, r.cfg.idle, func(context.Context) {})
	rep.Phases = append(rep.Phases, idle)
	for _, hz := range []float64{r.cfg.hzLow, r.cfg.hzHigh} {
		raw := r.runPhase(ctx, fmt.Sprintf("raw %g Hz", hz), "raw", hz, r.cfg.phase, func(c context.Context) { r.pollRaw(c, silent, hz) })
		sup := r.runPhase(ctx, fmt.Sprintf("supervised %g Hz", hz), "supervised", hz, r.cfg.phase, func(c context.Context) { r.pollSupervised(c, r.m, silent, hz) })
		rep.Phases = append(rep.Phases, raw, sup)
		rep.Incident = append(rep.Incident, incidentRow(hz, idle, raw, sup))
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}

	// Mixed: agents plus light polling of the other targets while faults
	// are injected one after another.
	var faults []Fault
	agentsFrom := time.Now()
	if err := r.typeLine(ctx, r.panes[targetChatty], targetCommands[targetChatty]); err != nil {
		return err
	}
	mixed := r.runPhase(ctx, "mixed + faults", "mixed", 0, 0, func(c context.Context) {
		bg, stop := context.WithCancel(c)
		done := make(chan struct{}, 3)
		go func() { r.agents(bg, r.cfg.agents); done <- struct{}{} }()
		// The raw poller addresses the pane by name: IDs change when a
		// server is rebuilt.
		go func() { r.pollRaw(bg, "chatty:"+targetChatty+".0", 2); done <- struct{}{} }()
		go func() { r.pollSupervised(bg, r.m, r.panes[targetHistory], 2); done <- struct{}{} }()
		for _, kind := range r.cfg.faults {
			if sleepCtx(c, r.cfg.gap) != nil {
				break
			}
			progress.line("fault " + kind)
			r.phase.Store("fault " + kind)
			faults = append(faults, r.inject(c, kind))
			r.phase.Store("mixed + faults")
		}
		sleepCtx(c, r.cfg.gap) //nolint:errcheck // ends early on a signal
		stop()
		for range 3 {
			<-done
		}
	})
	rep.Phases = append(rep.Phases, mixed)
	rep.Faults = faults
	rep.Unplanned = unplanned(r.m.allEvents(), r.sock, r.t0, faults)
	rep.Agents = tallyOf(r.agent.between(agentsFrom, time.Now()))
	progress.line("running tmux-mcp diagnose")
	rep.Diagnose, rep.DiagnoseOK = r.diagnose(ctx)
	return ctx.Err()
}

// unplanned returns the deaths of the main server that tmux-mcp reported
// outside every fault's window, with how long recovery took from the
// report.
func unplanned(events []event, sock string, t0 time.Time, faults []Fault) []Fault {
	var out []Fault
	for i, e := range events {
		if e.socket != sock || e.kind != "server_died" {
			continue
		}
		at := e.at.Sub(t0).Seconds()
		inFault := false
		for _, f := range faults {
			inFault = inFault || f.Skipped == "" && at >= f.At && at <= f.End
		}
		if inFault {
			continue
		}
		f := Fault{Kind: "unplanned: " + e.cause, At: at, Died: true, Cause: e.cause, DetectedMs: 0, RecoveredMs: -1,
			Recoverable: e.cause != "last_session" && e.cause != "kill_server", End: at,
			Note: "nobody injected this death; detection time is unknown (0 = as reported)"}
		for _, n := range events[i+1:] {
			if n.socket != sock {
				continue
			}
			if n.kind == "server_died" {
				break
			}
			if n.kind == "restored" || n.kind == "socket_recreated" {
				f.RecoveredMs = ms(n.at.Sub(e.at))
				f.RestoreReported, f.Restored = n.kind == "restored", n.ok
				break
			}
		}
		out = append(out, f)
	}
	return out
}

// runPhase runs fn for d (or until fn returns when d is 0) and measures
// the main server and the supervisor's counters around it.
func (r *run) runPhase(ctx context.Context, name, workload string, hz float64, d time.Duration, fn func(context.Context)) Phase {
	r.phase.Store(name)
	h0, _ := r.m.health(ctx, "")
	s0, _ := loadtest.StatOf(h0.PID)
	start := time.Now()
	pctx := ctx
	if d > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
		fn(pctx)
		<-pctx.Done()
	} else {
		fn(pctx)
	}
	end := time.Now()
	h1, _ := r.m.health(ctx, "")
	s1, ok := loadtest.StatOf(h0.PID)
	p := Phase{Name: name, Workload: workload, Hz: hz, Start: r.since(start), End: r.since(end), ServerPID: h0.PID,
		RSSStart: s0.RSS, FDsStart: s0.FDs, WatchersStart: h0.Watchers, WatchersEnd: h1.Watchers, Died: !ok || h1.PID != h0.PID}
	if ok {
		p.RSSEnd, p.FDsEnd, p.ServerCPUms = s1.RSS, s1.FDs, s1.CPUms-s0.CPUms
	}
	p.TmuxCommands, p.Barriers, p.CacheHits = h1.Commands-h0.Commands, h1.Barriers-h0.Barriers, h1.CacheHits-h0.CacheHits
	switch workload {
	case "raw":
		p.Target = targetSilent
		p.tally = tallyOf(r.raw.between(start, end))
		p.CaptureCommands = uint64(p.Calls)
		p.TmuxCommands += uint64(p.Calls)
	case "supervised":
		p.Target = targetSilent
		p.tally = tallyOf(r.sup.between(start, end))
		p.CaptureCommands = h1.Captures - h0.Captures
	case "mixed":
		all := append(append(r.raw.between(start, end), r.sup.between(start, end)...), r.agent.between(start, end)...)
		p.tally = tallyOf(all)
		p.CaptureCommands = h1.Captures - h0.Captures
		p.Died = false // deaths here are the faults', reported per fault
	}
	if p.Died && workload != "mixed" {
		r.note("the server changed during phase %q (PID %d -> %d)", name, h0.PID, h1.PID)
	}
	return p
}

// incidentRow compares the raw and supervised phases at one rate.
func incidentRow(hz float64, idle, raw, sup Phase) IncidentRow {
	per1k := func(cpu float64, calls int) float64 {
		if calls == 0 {
			return 0
		}
		return cpu * 1000 / float64(calls)
	}
	idleRate := 0.0
	if d := idle.End - idle.Start; d > 0 {
		idleRate = idle.ServerCPUms / d
	}
	return IncidentRow{Hz: hz,
		RawCalls: raw.Calls, RawCaptures: raw.CaptureCommands, RawCommands: raw.TmuxCommands, RawCPUms: raw.ServerCPUms, RawCPUmsPer1k: per1k(raw.ServerCPUms, raw.Calls),
		SupCalls: sup.Calls, SupCaptures: sup.CaptureCommands, SupCommands: sup.TmuxCommands, SupBarriers: sup.Barriers,
		SupCPUms:           sup.ServerCPUms,
		SupCPUmsPer1k:      per1k(sup.ServerCPUms, sup.Calls),
		IdleCPUmsPerSecond: idleRate,
		RawCPUmsAboveIdle:  raw.ServerCPUms - idleRate*(raw.End-raw.Start),
		SupCPUmsAboveIdle:  sup.ServerCPUms - idleRate*(sup.End-sup.Start),
		RawErrors:          raw.Calls - raw.OK, SupErrors: sup.Calls - sup.OK,
	}
}

// sampleLoop samples once a second until ctx ends.
func (r *run) sampleLoop(ctx context.Context, progress *progress) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	prev := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			s := r.sample(ctx, prev, now)
			prev = now
			progress.line(fmt.Sprintf("%5.0fs %-22s server pid %d rss %s fds %d cpu %.0f ms | calls raw %d sup %d agent %d | errors %d",
				s.T, s.Phase, s.ServerPID, mib(s.ServerRSS), s.ServerFDs, s.ServerCPUms, s.RawCalls, s.SupCalls, s.AgentCalls, s.Errors))
		}
	}
}

// sample takes one sample; latencies are those of calls that finished in
// (from, to].
func (r *run) sample(ctx context.Context, from, to time.Time) Sample {
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	h, err := r.m.health(hctx, "")
	cancel()
	s := Sample{T: r.since(to), Phase: r.phase.Load().(string), State: h.State, ServerPID: h.PID,
		TmuxCommands: h.Commands, Captures: h.Captures, Barriers: h.Barriers, CacheHits: h.CacheHits, MCPPID: r.m.pid()}
	if err != nil {
		s.State = "unknown"
	}
	ps, ok := loadtest.StatOf(h.PID)
	s.ServerRSS, s.ServerFDs, s.ServerThreads = ps.RSS, ps.FDs, ps.Threads
	ms, _ := loadtest.StatOf(s.MCPPID)
	s.MCPRSS, s.MCPFDs, s.MCPThreads = ms.RSS, ms.FDs, ms.Threads
	s.RawCalls, s.SupCalls, s.AgentCalls = r.raw.count(), r.sup.count(), r.agent.count()
	s.Errors = r.errorCount()
	pct := func(rec *recorder) (Opt, Opt) {
		calls := rec.between(from, to)
		if len(calls) == 0 {
			return Opt(nan()), Opt(nan())
		}
		l := tallyOf(calls).Latencies
		return Opt(l.P50), Opt(l.P99)
	}
	s.RawP50, s.RawP99 = pct(&r.raw)
	s.SupP50, s.SupP99 = pct(&r.sup)
	s.AgentP50, s.AgentP99 = pct(&r.agent)
	r.mu.Lock()
	s.ServerCPUms = r.cpu.total(h.PID, ps.CPUms, ok)
	r.samples = append(r.samples, s)
	r.mu.Unlock()
	return s
}

// diagnose runs `tmux-mcp diagnose` against the main server when the
// binary has that command, and returns its report.
func (r *run) diagnose(ctx context.Context) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.cfg.bin, "diagnose")
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	text := string(out)
	if strings.Contains(text, `unknown command "diagnose"`) {
		return "tmux-mcp diagnose is not in this build of tmux-mcp.", false
	}
	if err != nil && strings.TrimSpace(text) == "" {
		return "tmux-mcp diagnose failed: " + err.Error(), false
	}
	if err != nil {
		// diagnose exits non-zero when it warns or finds a fault; its
		// report is what matters.
		text += "\n(tmux-mcp diagnose: " + err.Error() + ")"
	}
	return text, true
}

// hostInfo describes the machine and tools.
func hostInfo(bin string) Host {
	h := Host{CPUs: runtime.NumCPU(), Go: runtime.Version(), CPUClock: loadtest.CPUClock(),
		Goroutines:  "not sampled: tmux-mcp exposes no goroutine count (no pprof or metrics endpoint in this build)",
		PTYPressure: "skipped (see the pty-pressure fault)"}
	if out, err := exec.Command(bin, "version").Output(); err == nil {
		h.TmuxMCP = strings.TrimSpace(string(out))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if v, err := (&tmux.Exec{Socket: tmux.Socket{Name: "unused"}}).BinaryVersion(ctx); err == nil { // contacts no server
		h.Tmux = v.Raw
	}
	return h
}
