package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// run is one soak run: its private directory, the tmux-mcp it drives, the
// raw tmux client it polls with, and everything measured.
type run struct {
	cfg  config
	t0   time.Time
	dir  string // private directory: sockets, journal, logs
	sock string // the main server's socket path
	x    *tmux.Exec
	m    *mcpProc
	env  []string // tmux-mcp's environment

	raw, sup, agent recorder
	phase           atomic.Value // string

	mu      sync.Mutex
	samples []Sample
	cpu     cpuTracker
	extra   []*mcpProc     // further tmux-mcp processes (fd-limit fault)
	started []loadtest.Ref // processes the harness started or whose servers it owns
	notes   []string

	panes      map[string]string // target name -> pane ID at set-up
	lastChange time.Time         // the journal must have a snapshot newer than this before a fault
	stable     []string          // journaled objects the run keeps (not the agents' scratch windows)
}

// targetCommands are the programs the targets run.
var targetCommands = map[string]string{
	targetSilent:  "cat",
	targetChatty:  "i=0; while :; do i=$((i+1)); echo chatty $i; sleep 0.05; done",
	targetHistory: "seq -f 'history line %06g of fifty thousand, padded to eighty columns ...........' 1 50000",
}

// relaunch starts the silent and chatty programs again in a rebuilt
// server, as an agent would (a restore recreates panes, not the programs
// in them, unless asked to).
func (r *run) relaunch(ctx context.Context) {
	for _, target := range []string{targetSilent, targetChatty} {
		pane, err := r.tmuxRun(ctx, 5*time.Second, "display-message", "-p", "-t", targetSessions[target]+":"+target+".0", "#{pane_id}")
		if err != nil {
			r.note("relaunch %s: %v", target, err)
			continue
		}
		if err := r.waitPrompt(ctx, pane); err != nil {
			r.note("relaunch %s: %v", target, err)
			continue
		}
		if err := r.typeLine(ctx, pane, targetCommands[target]); err != nil {
			r.note("relaunch %s: %v", target, err)
		}
	}
}

// Target names.
const (
	targetSilent  = "silent"  // cat: prints nothing, the incident's pane
	targetChatty  = "chatty"  // prints a line every 50 ms
	targetHistory = "history" // 50,000 lines of history
)

// targetSessions maps a target to its session (one window, named after
// the target).
var targetSessions = map[string]string{targetSilent: "incident", targetChatty: "chatty", targetHistory: "history"}

func newRun(cfg config) (*run, error) {
	// Unix socket paths are short (108 bytes): a directory of our own
	// under /tmp, never the user's default socket directory.
	dir, err := os.MkdirTemp("", "soak")
	if err != nil {
		return nil, fmt.Errorf("repro: %w", err)
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	r := &run{cfg: cfg, t0: time.Now(), dir: dir, sock: filepath.Join(dir, "main"), panes: map[string]string{}}
	r.phase.Store("setup")
	r.x = &tmux.Exec{Socket: tmux.Socket{Path: r.sock}, Config: "/dev/null"}
	// The raw poller must never start a server: -N.
	r.x.SetNoStart(true)
	r.env = r.mcpEnv("TMUX_MCP_SOCKET_PATH="+r.sock, "TMUX_MCP_JOURNAL="+filepath.Join(dir, "journal.db"),
		"TMUX_MCP_LOG_FILE="+filepath.Join(dir, "tmux-mcp.log"))
	return r, nil
}

// mcpEnv is the environment of a tmux-mcp process: ours without TMUX and
// TMUX_PANE, -L sockets under the private directory, no tmux config, the
// run's hung bound, /bin/sh in panes, plus extra.
func (r *run) mcpEnv(extra ...string) []string {
	e := (&tmux.Exec{}).Environ()
	// SHELL=/bin/sh: the servers tmux-mcp starts take their default-shell
	// from it, so panes start at once and alike on every machine, not
	// after the user's shell start-up files.
	e = append(e, "SHELL=/bin/sh", "TMUX_TMPDIR="+r.dir, "TMUX_MCP_TMUX_CONFIG=/dev/null", "TMUX_MCP_LOG_LEVEL=info",
		"TMUX_MCP_HUNG_AFTER="+r.cfg.hungAfter.String())
	return append(e, extra...)
}

// since is seconds from the run's start to t.
func (r *run) since(t time.Time) float64 { return t.Sub(r.t0).Seconds() }

func (r *run) note(format string, a ...any) {
	r.mu.Lock()
	r.notes = append(r.notes, fmt.Sprintf(format, a...))
	r.mu.Unlock()
}

func (r *run) track(p loadtest.Ref) {
	if p.PID <= 0 {
		return
	}
	r.mu.Lock()
	r.started = append(r.started, p)
	r.mu.Unlock()
}

// tmuxRun runs one raw tmux command on the main server with a deadline.
func (r *run) tmuxRun(ctx context.Context, d time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	out, err := r.x.Run(ctx, args...)
	return strings.TrimRight(string(out), "\n"), err
}

// serverPID asks the supervisor (no tmux call) for the main server's PID.
func (r *run) serverPID(ctx context.Context) int {
	h, err := r.m.health(ctx, "")
	if err != nil {
		return 0
	}
	return h.PID
}

// setup starts tmux-mcp, has it start the main server, and creates the
// targets and the agents' sessions through it.
func (r *run) setup(ctx context.Context) error {
	m, err := startMCP(ctx, r.cfg.bin, r.env)
	if err != nil {
		return err
	}
	r.m = m
	r.track(loadtest.RefOf(m.pid()))
	// The first call starts the server (tmux -D, owned by tmux-mcp).
	if err := m.mustTool(ctx, "create_session", map[string]any{"session_name": "incident", "window_name": targetSilent, "x": 120, "y": 40}, nil); err != nil {
		return err
	}
	pid := r.serverPID(ctx)
	if pid == 0 {
		return errors.New("repro: tmux-mcp reports no server PID after create_session")
	}
	r.track(loadtest.RefOf(pid))
	// A big history needs a history-limit above tmux's 2,000 before the
	// pane exists.
	if _, err := r.tmuxRun(ctx, 5*time.Second, "set-option", "-g", "history-limit", "60000"); err != nil {
		return fmt.Errorf("repro: set history-limit: %w", err)
	}
	sessions := []struct{ name, window string }{{"chatty", targetChatty}, {"history", targetHistory}}
	for i := 1; i <= r.cfg.agents; i++ {
		sessions = append(sessions, struct{ name, window string }{fmt.Sprintf("agent-%d", i), "home"})
	}
	for _, s := range sessions {
		if err := m.mustTool(ctx, "create_session", map[string]any{"session_name": s.name, "window_name": s.window, "x": 120, "y": 40}, nil); err != nil {
			return err
		}
	}
	r.lastChange = time.Now()
	for target, sess := range targetSessions {
		id, err := r.tmuxRun(ctx, 5*time.Second, "display-message", "-p", "-t", sess+":"+target+".0", "#{pane_id}")
		if err != nil {
			return fmt.Errorf("repro: pane of %s: %w", target, err)
		}
		r.panes[target] = id
	}
	// The chatty pane starts printing with the mixed phase: until then
	// the server's only load is the workload being measured.
	for _, target := range []string{targetSilent, targetHistory} {
		cmd := targetCommands[target]
		if err := r.waitPrompt(ctx, r.panes[target]); err != nil {
			return err
		}
		if err := r.typeLine(ctx, r.panes[target], cmd); err != nil {
			return err
		}
	}
	// Wait until the history is there.
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := r.tmuxRun(ctx, 5*time.Second, "display-message", "-p", "-t", r.panes[targetHistory], "#{history_size}")
		if n, _ := strconv.Atoi(out); err == nil && n >= 49000 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("repro: history pane has %q lines of history after 60 s", out)
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	r.waitJournaled(ctx)
	stable, err := r.inventory(ctx)
	if err != nil {
		return err
	}
	r.stable = stable
	return nil
}

// waitPrompt waits until a new pane's shell has printed its prompt: keys
// typed before the shell reads its terminal can be discarded.
func (r *run) waitPrompt(ctx context.Context, pane string) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, err := r.tmuxRun(ctx, 5*time.Second, "capture-pane", "-p", "-t", pane)
		if err == nil && strings.TrimSpace(out) != "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("repro: no prompt in pane %s after 15 s", pane)
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// typeLine types a command line into a pane and presses Enter: with the
// send_keys tool when the binary has it, else with a raw send-keys.
func (r *run) typeLine(ctx context.Context, pane, line string) error {
	if r.m.tools["send_keys"] {
		return r.m.mustTool(ctx, "send_keys", map[string]any{"pane_id": pane, "keys": line, "enter": true}, nil)
	}
	if _, err := r.tmuxRun(ctx, 5*time.Second, "send-keys", "-t", pane, "-l", line); err != nil {
		return fmt.Errorf("repro: send-keys: %w", err)
	}
	if _, err := r.tmuxRun(ctx, 5*time.Second, "send-keys", "-t", pane, "Enter"); err != nil {
		return fmt.Errorf("repro: send-keys: %w", err)
	}
	return nil
}

// waitJournaled waits (at most 15 s) until the journal holds a snapshot
// taken after r.lastChange, so that what is alive now is what a restore
// must bring back.
func (r *run) waitJournaled(ctx context.Context) {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		var snaps struct {
			Result []struct {
				Taken time.Time `json:"taken"`
			} `json:"result"`
		}
		if err := r.m.mustTool(ctx, "list_snapshots", map[string]any{"limit": 1}, &snaps); err == nil &&
			len(snaps.Result) > 0 && snaps.Result[0].Taken.After(r.lastChange) {
			return
		}
		sleepCtx(ctx, 200*time.Millisecond) //nolint:errcheck // the loop checks ctx
	}
	r.note("the journal had no snapshot newer than %.1f s within 15 s; objects were compared with the live listing", r.since(r.lastChange))
}

// inventory lists the main server's sessions, windows and panes the run
// keeps (everything except the hidden session and what is named scratch:
// the agents' windows, the faults' own sessions), straight from tmux.
func (r *run) inventory(ctx context.Context) ([]string, error) {
	out, err := r.tmuxRun(ctx, 5*time.Second, "list-panes", "-a", "-F", "#{session_name}\t#{window_name}\t#{pane_index}")
	if err != nil {
		return nil, err
	}
	return inventoryOf(out), nil
}

// inventoryOf turns list-panes lines (session, window name, pane index)
// into object names, sorted and without duplicates.
func inventoryOf(listing string) []string {
	seen := map[string]bool{}
	var objs []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			objs = append(objs, s)
		}
	}
	for _, line := range strings.Split(listing, "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] == tmux.HiddenSession || strings.HasPrefix(f[0], "scratch") || strings.HasPrefix(f[1], "scratch") {
			continue
		}
		add("session " + f[0])
		add("window " + f[0] + "/" + f[1])
		add("pane " + f[0] + "/" + f[1] + "." + f[2])
	}
	return objs
}

// missing returns the objects of want not in have.
func missing(want, have []string) []string {
	in := map[string]bool{}
	for _, h := range have {
		in[h] = true
	}
	var out []string
	for _, w := range want {
		if !in[w] {
			out = append(out, w)
		}
	}
	return out
}

// waitInventory waits up to d for every object of want to be present and
// returns those still missing.
func (r *run) waitInventory(ctx context.Context, want []string, d time.Duration) []string {
	deadline := time.Now().Add(d)
	var lost []string
	for {
		have, err := r.inventory(ctx)
		if err == nil {
			lost = missing(want, have)
			if len(lost) == 0 {
				return nil
			}
		} else {
			lost = want
		}
		if time.Now().After(deadline) || sleepCtx(ctx, 200*time.Millisecond) != nil {
			return lost
		}
	}
}

// cpuTracker sums the CPU time of successive server processes.
type cpuTracker struct {
	pid      int
	last     float64 // the current process's CPU ms at the last sample
	finished float64 // CPU ms of earlier processes
}

func (c *cpuTracker) total(pid int, cur float64, ok bool) float64 {
	if pid != c.pid {
		c.finished += c.last
		c.pid, c.last = pid, 0
	}
	if ok {
		c.last = cur
	}
	return c.finished + c.last
}

// errorCount is the failed calls of all workloads so far.
func (r *run) errorCount() int {
	n := 0
	for _, rec := range []*recorder{&r.raw, &r.sup, &r.agent} {
		rec.mu.Lock()
		for _, c := range rec.calls {
			if c.class != "" {
				n++
			}
		}
		rec.mu.Unlock()
	}
	return n
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cleanup ends everything the run started: the tmux-mcp processes (stdin
// closed, then SIGKILL if stuck), every server on the run's sockets
// (kill-server, then SIGKILL to PIDs seen), and anything else that still
// names the private directory. It returns the processes that were still
// alive after the orderly part: leaks.
func (r *run) cleanup() []string {
	for _, m := range r.extra {
		m.close()
	}
	if r.m != nil {
		r.m.close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	socks, _ := filepath.Glob(filepath.Join(r.dir, "*"))
	more, _ := filepath.Glob(filepath.Join(r.dir, "tmux-*", "*"))
	for _, s := range append(socks, more...) {
		if fi, err := os.Stat(s); err != nil || fi.Mode()&os.ModeSocket == 0 {
			continue
		}
		x := &tmux.Exec{Socket: tmux.Socket{Path: s}, Config: "/dev/null"}
		x.SetNoStart(true)
		if out, err := x.Run(ctx, "display-message", "-p", "#{pid}"); err == nil {
			if pid, _ := strconv.Atoi(strings.TrimSpace(string(out))); pid > 0 {
				r.track(loadtest.RefOf(pid))
			}
		}
		x.Run(ctx, "kill-server") //nolint:errcheck // it may be gone
	}
	r.mu.Lock()
	started := append([]loadtest.Ref(nil), r.started...)
	r.mu.Unlock()
	for _, p := range started {
		p.Signal(syscall.SIGCONT) // a stopped server cannot exit
	}
	// Servers and their panes need a moment to exit after kill-server.
	leaked := loadtest.Reap(r.dir, started, 5*time.Second)
	if !r.cfg.keep {
		os.RemoveAll(r.dir)
	}
	return leaked
}
