// Command churn is the crash-safety soak of tmux-mcp: on one private
// tmux server, several tmux-mcp processes (the built binary, over MCP
// stdio) each drive an agent's loop through the tools (sessions,
// windows, splits, commands, waits, captures, renames, selects,
// resizes, kills), while a person-like program uses tmux itself beside
// them, one thing at a time: control clients attached with `tmux -C`
// (switchable: -person-control), ordinary clients in a PTY, sessions
// created, renamed and killed, panes selected, copy mode, paste
// buffers. A monitor checks every 100 ms that the tmux server's process
// lives. At the end it reads every tmux-mcp's server_health and runs
// `tmux-mcp diagnose`, and writes report.json, summary.txt and
// diagnose's reports into -out. It exits 1 when the server died,
// tmux-mcp restarted it, or diagnose shows a crash or death (and 2 on
// bad flags).
//
// On tmux 3.2a-3.6b tmux itself crashes when a session notification
// reaches a control client that is still identifying itself
// (docs/platforms.md). tmux-mcp's own control clients identify in one
// turn of the server's loop; the person's `tmux -C` is tmux's own client
// and can be hit by anybody's session change: run with
// -person-control=false to measure tmux-mcp alone.
//
// Everything runs on a server of its own (a socket in a private
// directory under /tmp, -f /dev/null, panes running /bin/sh without
// start-up files) and ends, by PID, what the run started. Run it with
// `make soak-crash` (scripts/soak-crash).
//
// churn -table report.json... prints the Markdown table of several runs.
package main

import (
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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// config is the run's settings.
type config struct {
	bin           string
	tmux          string
	out           string
	duration      time.Duration
	mcp           int
	seed          uint64
	pace          string
	person        bool
	personControl bool
	personPTY     bool
	keep          bool
}

// pacing is how busy the actors are: random pauses in [lo, hi).
type pacing struct {
	agentPause   [2]time.Duration // after every agent call
	personPause  [2]time.Duration // after every thing the person does
	controlEvery [2]time.Duration // between the person's control attaches
	controlStay  [2]time.Duration // how long a control client stays
	ptyEvery     [2]time.Duration // between PTY attaches
	ptyStay      [2]time.Duration
}

// paces: realistic is busy agents (a few calls a second each) and a
// person attaching a control client every 5-10 s; aggressive has agents
// call without pause and the person attach several times a second;
// attach-storm is realistic agents beside the aggressive person (many
// handshakes under an agent's ordinary traffic: how often one is hit).
var paces = map[string]pacing{
	"realistic": {
		agentPause:   [2]time.Duration{150 * time.Millisecond, 450 * time.Millisecond},
		personPause:  [2]time.Duration{500 * time.Millisecond, 2500 * time.Millisecond},
		controlEvery: [2]time.Duration{5 * time.Second, 10 * time.Second},
		controlStay:  [2]time.Duration{time.Second, 4 * time.Second},
		ptyEvery:     [2]time.Duration{20 * time.Second, 40 * time.Second},
		ptyStay:      [2]time.Duration{time.Second, 3 * time.Second},
	},
	"aggressive": {
		agentPause:   [2]time.Duration{0, 20 * time.Millisecond},
		personPause:  [2]time.Duration{10 * time.Millisecond, 60 * time.Millisecond},
		controlEvery: [2]time.Duration{50 * time.Millisecond, 300 * time.Millisecond},
		controlStay:  [2]time.Duration{50 * time.Millisecond, 400 * time.Millisecond},
		ptyEvery:     [2]time.Duration{2 * time.Second, 5 * time.Second},
		ptyStay:      [2]time.Duration{300 * time.Millisecond, time.Second},
	},
}

func init() {
	storm := paces["realistic"]
	a := paces["aggressive"]
	storm.personPause, storm.controlEvery, storm.controlStay = a.personPause, a.controlEvery, a.controlStay
	paces["attach-storm"] = storm
}

func main() {
	os.Exit(realMain())
}

func realMain() int {
	var cfg config
	fs := flag.NewFlagSet("churn", flag.ContinueOnError)
	fs.StringVar(&cfg.bin, "bin", "bin/tmux-mcp", "the tmux-mcp binary")
	fs.StringVar(&cfg.tmux, "tmux", os.Getenv("TMUX_MCP_TEST_TMUX"), "tmux binary (default: $TMUX_MCP_TEST_TMUX, else the PATH's)")
	fs.StringVar(&cfg.out, "out", "soak-report/churn", "directory for report.json, summary.txt, diagnose.{json,md} and the tmux-mcp logs")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Minute, "how long the churn runs")
	fs.IntVar(&cfg.mcp, "mcp", 3, "tmux-mcp processes (one agent each)")
	fs.Uint64Var(&cfg.seed, "seed", 0, "random seed (0: from the clock; the report says which)")
	fs.StringVar(&cfg.pace, "pace", "realistic", "realistic, aggressive or attach-storm")
	fs.BoolVar(&cfg.person, "person", true, "run the person beside the agents")
	fs.BoolVar(&cfg.personControl, "person-control", true, "the person attaches control clients (tmux -C)")
	fs.BoolVar(&cfg.personPTY, "person-pty", true, "the person attaches ordinary clients in a PTY")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the private directory (socket, journal)")
	table := fs.Bool("table", false, "print the Markdown table of the report.json files named as arguments, and exit")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	if *table {
		return printTable(os.Stdout, fs.Args())
	}
	if _, ok := paces[cfg.pace]; !ok {
		fmt.Fprintf(os.Stderr, "churn: unknown pace %q (realistic, aggressive, attach-storm)\n", cfg.pace)
		return 2
	}
	if cfg.mcp < 1 || cfg.duration <= 0 {
		fmt.Fprintln(os.Stderr, "churn: -mcp must be at least 1 and -duration positive")
		return 2
	}
	if cfg.tmux == "" {
		cfg.tmux = "tmux"
	}
	bin, err := exec.LookPath(cfg.tmux)
	if err == nil {
		bin, err = filepath.Abs(bin)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "churn: tmux binary %q: %v\n", cfg.tmux, err)
		return 2
	}
	cfg.tmux = bin
	if cfg.bin, err = filepath.Abs(cfg.bin); err == nil {
		_, err = os.Stat(cfg.bin)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "churn: %v (build it with make build)\n", err)
		return 2
	}
	if cfg.seed == 0 {
		cfg.seed = uint64(time.Now().UnixNano())
	}
	if !cfg.person {
		cfg.personControl, cfg.personPTY = false, false
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, err := churn(ctx, cfg)
	if rep != nil {
		if werr := writeReport(cfg.out, rep); werr != nil {
			fmt.Fprintln(os.Stderr, werr)
			return 1
		}
		fmt.Println()
		writeSummary(os.Stdout, rep)
		fmt.Printf("report: %s/summary.txt, report.json, diagnose.md\n", cfg.out)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "churn: %v\n", err)
		return 1
	}
	if !rep.Passed {
		return 1
	}
	return 0
}

// writeReport writes report.json and summary.txt into dir.
func writeReport(dir string, rep *Report) error {
	return loadtest.WriteReport(dir, rep, loadtest.File{Name: "summary.txt", Write: func(w io.Writer) error {
		writeSummary(w, rep)
		return nil
	}})
}

// printTable prints the table of the reports at paths.
func printTable(w io.Writer, paths []string) int {
	fmt.Fprint(w, TableHeader)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		var r Report
		if err := json.Unmarshal(b, &r); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", p, err)
			return 1
		}
		fmt.Fprint(w, TableRow(&r))
	}
	return 0
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// churn runs the soak. It returns a report whenever the server started,
// even with an error.
func churn(ctx context.Context, cfg config) (*Report, error) {
	t0 := time.Now()
	rep := &Report{Started: t0, Host: Host{CPUs: runtime.NumCPU(), LoadStart: loadavg()}}
	rep.Settings = Settings{Duration: cfg.duration.String(), Tmux: cfg.tmux, MCP: cfg.mcp, Pace: cfg.pace, Person: cfg.person,
		PersonControl: cfg.personControl, PersonPTY: cfg.personPTY, Seed: cfg.seed}
	if out, err := exec.Command(cfg.bin, "version").Output(); err == nil {
		rep.Settings.TmuxMCP = strings.TrimSpace(loadtest.FirstLine(string(out)))
	}
	if err := becomeSubreaper(); err != nil {
		rep.Notes = append(rep.Notes, "not a child subreaper ("+err.Error()+"): a server's exit status is read only while it is a zombie")
	}
	w, err := newWorld(cfg.tmux, t0)
	if err != nil {
		return nil, err
	}
	// Everything that runs "tmux" finds the binary under test.
	for i, kv := range w.env {
		if strings.HasPrefix(kv, "PATH=") {
			w.env[i] = "PATH=" + filepath.Dir(cfg.tmux) + string(os.PathListSeparator) + kv[len("PATH="):]
		}
	}
	rep.Settings.TmuxVersion = w.version()
	runErr := rep.run(ctx, cfg, w)
	rep.Leaked = w.cleanup(cfg.keep)
	rep.Host.LoadEnd = loadavg()
	if cfg.keep {
		rep.Notes = append(rep.Notes, "private directory kept: "+w.dir)
	}
	rep.Verdicts = Judge(rep)
	if runErr != nil {
		rep.Verdicts = append(rep.Verdicts, loadtest.Verdict{Name: "run completed", Detail: runErr.Error()})
	}
	rep.Passed = loadtest.Passed(rep.Verdicts)
	return rep, runErr
}

// run is the soak between making the world and cleaning it up.
func (rep *Report) run(ctx context.Context, cfg config, w *world) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	journal := filepath.Join(w.dir, "journal.db")
	pid, err := w.startServer(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "churn: %s, server PID %d on %s; %d tmux-mcp, pace %s, person %s (control %s), %v\n",
		rep.Settings.TmuxVersion, pid, w.sock, cfg.mcp, cfg.pace, onOff(cfg.person), onOff(cfg.personControl), cfg.duration)
	mon := newMonitor(w, pid)
	monCtx, stopMon := context.WithCancel(context.WithoutCancel(ctx))
	monDone := make(chan struct{})
	go func() { defer close(monDone); mon.run(monCtx) }()
	defer func() { stopMon(); <-monDone }()

	// The tmux-mcp processes, each adopting the server before the churn
	// starts (their control clients are dialled then).
	var mcps []*mcpProc
	defer func() {
		for _, m := range mcps {
			m.close()
		}
	}()
	for i := 1; i <= cfg.mcp; i++ {
		args := []string{"serve", "--socket-path", w.sock, "--journal", journal, "--tmux-bin", cfg.tmux,
			"--tmux-config", "/dev/null", "--safety", "destructive", "--log-file", filepath.Join(w.dir, fmt.Sprintf("mcp-%d.log", i))}
		m, err := startMCP(ctx, cfg.bin, args, w.env, w.t0)
		if err != nil {
			return err
		}
		mcps = append(mcps, m)
		w.track(loadtest.RefOf(m.pid()))
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		r, err := m.tool(cctx, "list_sessions", map[string]any{})
		cancel()
		if err != nil || r.Class != "" {
			return fmt.Errorf("churn: tmux-mcp %d: list_sessions: %v %s", i, err, loadtest.FirstLine(r.Text))
		}
	}

	// The churn.
	pace := paces[cfg.pace]
	cctx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	start := time.Now()
	rep.ChurnStart = w.since(start)
	var wg sync.WaitGroup
	var recs []*recorder
	for i, m := range mcps {
		rec := newRecorder(fmt.Sprintf("agent-%d", i+1), w.t0)
		recs = append(recs, rec)
		a := &agent{id: i + 1, m: m, rec: rec, pace: pace, rng: newRand(cfg.seed, uint64(i+1))}
		wg.Go(func() { a.run(cctx) })
	}
	personRec := newRecorder("person", w.t0)
	p := newPerson(w, pace, cfg.seed, personRec, cfg.personControl, cfg.personPTY)
	if cfg.person {
		wg.Go(func() { p.run(cctx) })
	}
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		progress(cctx, start, cfg.duration, recs, personRec, mon)
	}()
	wg.Wait()
	cancel()
	<-progressDone
	rep.Seconds = time.Since(start).Seconds()
	for _, r := range recs {
		rep.Agents = append(rep.Agents, r.stats())
	}
	if cfg.person {
		rep.Person = personRec.stats()
	}
	rep.Clients = p.result()

	// What each tmux-mcp says, then their orderly end.
	for i, m := range mcps {
		h := MCPHealth{N: i + 1, PID: m.pid()}
		hctx, hcancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		hl, err := m.health(hctx)
		hcancel()
		if err != nil {
			h.Error = err.Error()
		} else {
			h.State, h.ServerPID, h.Restarts, h.LastDeathCause, h.LastDeath = hl.State, hl.PID, hl.Restarts, hl.LastDeathCause, hl.LastDeath
		}
		h.Events = m.lifeLog()
		if m.close() {
			h.Exit = "killed: it had not exited 10 s after its stdin closed"
		} else if st := m.cmd.ProcessState; st != nil && !st.Success() {
			h.Exit = "exited: " + st.String()
		}
		rep.MCP = append(rep.MCP, h)
	}
	mcps = nil

	// diagnose, with the environment and journal tmux-mcp had.
	rep.Diagnose = runDiagnose(context.WithoutCancel(ctx), cfg.bin, w.env,
		[]string{"-socket-path", w.sock, "-journal", journal, "-tmux-bin", cfg.tmux}, w.sock, cfg.out)

	stopMon()
	<-monDone
	rep.Server = mon.result()
	for i, d := range rep.Server.Deaths {
		rep.Server.Deaths[i].During = connectingAt(d.At, rep.Clients.Control)
	}
	for i := 1; i <= cfg.mcp; i++ {
		copyTail(filepath.Join(w.dir, fmt.Sprintf("mcp-%d.log", i)), filepath.Join(cfg.out, fmt.Sprintf("mcp-%d.log", i)), 4<<20)
	}
	return nil
}

// progress prints a line every 30 s on stderr.
func progress(ctx context.Context, start time.Time, d time.Duration, recs []*recorder, person *recorder, mon *monitor) {
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		calls, errs := 0, 0
		for _, r := range recs {
			s := r.stats()
			calls, errs = calls+s.Calls, errs+s.Errors
		}
		ps := person.stats()
		life := mon.result()
		fmt.Fprintf(os.Stderr, "churn: %3.0f/%.0f s: agents %d calls (%d errors), person %d (%d control attaches), server %s\n",
			time.Since(start).Seconds(), d.Seconds(), calls, errs, ps.Calls, ps.Ops["control-attach"].Calls, serverWord(life))
	}
}

func serverWord(l ServerLife) string {
	if len(l.Deaths) == 0 {
		return "PID " + strconv.Itoa(l.PIDStart) + " alive"
	}
	return fmt.Sprintf("DIED %d time(s), first at %.1f s", len(l.Deaths), l.Deaths[0].At)
}

// copyTail copies the last max bytes of src to dst.
func copyTail(src, dst string, max int64) {
	f, err := os.Open(src)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		f.Seek(fi.Size()-max, io.SeekStart) //nolint:errcheck // a short copy is fine
	}
	out, err := os.Create(dst)
	if err != nil {
		return
	}
	io.Copy(out, f) //nolint:errcheck // best effort
	out.Close()
}
