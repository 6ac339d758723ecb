package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
	"github.com/tmux-mcp/tmux-mcp/shellquote"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Fault kinds, in the order a run injects them.
const (
	FaultKill      = "kill-9"       // SIGKILL the server
	FaultSocket    = "socket-rm"    // delete the server's socket
	FaultHang      = "sigstop"      // SIGSTOP past the hung bound, then SIGCONT
	FaultStuck     = "stuck-client" // a control client that never reads
	FaultExitEmpty = "exit-empty"   // the last pane exits with exit-empty on
	FaultFDLimit   = "fd-limit"     // a server started under a small fd limit
	FaultPTY       = "pty-pressure" // run out of PTYs
)

// AllFaults is every fault kind in injection order.
// The ones that keep the main server come first, while the targets still
// run their programs.
var AllFaults = []string{FaultStuck, FaultExitEmpty, FaultFDLimit, FaultKill, FaultSocket, FaultHang, FaultPTY}

// inject runs one fault and returns what followed.
func (r *run) inject(ctx context.Context, kind string) Fault {
	switch kind {
	case FaultKill:
		return r.outage(ctx, kind, func(p loadtest.Ref) { p.Signal(syscall.SIGKILL) })
	case FaultSocket:
		return r.outage(ctx, kind, func(loadtest.Ref) { os.Remove(r.sock) })
	case FaultHang:
		return r.outage(ctx, kind, func(p loadtest.Ref) {
			p.Signal(syscall.SIGSTOP)
			// Resume it once the verdict's bound for detecting a hang has
			// passed, unless the supervisor has ended it by then (same()
			// checks the PID's start time, so no other process is
			// signalled). Resumed any sooner, a hang that a loaded machine
			// lets the supervisor see late, but within the bound, would
			// end before it is seen (detection takes the hung bound plus a
			// probe's timeout: 2 s plus 1.3 s in the smoke, and the fault
			// lasted 4 s).
			bound := DefaultBounds(float64(r.cfg.hungAfter.Milliseconds())).HungDetectMs
			time.AfterFunc(time.Duration(bound)*time.Millisecond, func() { p.Signal(syscall.SIGCONT) })
		})
	case FaultStuck:
		return r.stuckClient(ctx)
	case FaultExitEmpty:
		return r.exitEmpty(ctx)
	case FaultFDLimit:
		return r.fdLimit(ctx)
	case FaultPTY:
		return r.ptyPressure(ctx)
	}
	return Fault{Kind: kind, Skipped: "unknown fault", DetectedMs: -1, RecoveredMs: -1}
}

// outage injects a fault that takes the main server away from its clients
// (killed, socket deleted, hung), then measures how long tmux-mcp took to
// report it and to bring the server and its journaled objects back.
func (r *run) outage(ctx context.Context, kind string, do func(loadtest.Ref)) Fault {
	f := Fault{Kind: kind, DetectedMs: -1, RecoveredMs: -1, Recoverable: true, Died: true}
	r.waitJournaled(ctx)
	before, err := r.inventory(ctx)
	if err != nil {
		f.Note = "no inventory before the fault: " + err.Error()
	}
	f.ObjectsBefore = len(before)
	pid := loadtest.RefOf(r.serverPID(ctx))
	if pid.PID == 0 {
		f.Skipped = "tmux-mcp reports no server PID"
		return f
	}
	errs := r.errorCount()
	mark := r.m.mark()
	t := time.Now()
	f.At = r.since(t)
	do(pid)
	onMain := func(kinds ...string) func(event) bool {
		return func(e event) bool {
			if e.socket != r.sock {
				return false
			}
			for _, k := range kinds {
				if e.kind == k {
					return true
				}
			}
			return false
		}
	}
	wait := 30*time.Second + r.cfg.hungAfter
	if e, ok := r.m.waitEvent(ctx, mark, wait, onMain("server_died")); ok {
		f.DetectedMs, f.Cause = ms(e.at.Sub(t)), e.cause
	}
	if e, ok := r.m.waitEvent(ctx, mark, 90*time.Second, onMain("restored", "socket_recreated")); ok {
		f.RecoveredMs = ms(e.at.Sub(t))
		if e.kind == "restored" {
			f.Restored = e.ok
			f.RestoreReported = true
			if !e.ok {
				f.Note = "tmux-mcp reported the restore as failed: " + r.restoreDetail(ctx)
			}
		}
	} else if e, ok := r.m.waitEvent(ctx, mark, time.Second, onMain("restarted")); ok {
		f.RecoveredMs = ms(e.at.Sub(t))
		f.Note = "restarted without a restore event"
	}
	if pid.Same() {
		if kind == FaultHang {
			f.Note = strings.TrimPrefix(f.Note+"; the stopped server was resumed, not replaced", "; ")
		} else if kind == FaultKill {
			f.Note = "the server survived SIGKILL?"
		}
	}
	if pid.Same() && kind == FaultSocket {
		f.Note = "the same server answers again (socket recreated, not restarted)"
	}
	now := r.serverPID(ctx)
	r.track(loadtest.RefOf(now))
	f.Lost = r.waitInventory(ctx, before, 20*time.Second)
	if f.RestoreReported {
		lost, journaled, used, after, ok, err := r.journalLoss(ctx, t)
		switch {
		case err != nil:
			f.Note = strings.TrimPrefix(f.Note+"; journal check: "+err.Error(), "; ")
		case ok:
			f.JournalCheck = fmt.Sprintf("snapshot %d (used) against %d (after the restore): %d of %d journaled objects missing", used, after, len(lost), journaled)
			f.Journaled = journaled
			for _, o := range lost {
				f.Lost = append(f.Lost, "journaled "+o)
			}
		default:
			f.Note = strings.TrimPrefix(f.Note+"; no restore snapshots in journal_events", "; ")
		}
	}
	if now != pid.PID {
		r.relaunch(ctx)
	}
	f.Errors = r.errorCount() - errs
	f.End = r.since(time.Now())
	if now != pid.PID {
		// A new server: the next fault needs a snapshot of it.
		r.lastChange = time.Now()
	}
	return f
}

// restoreDetail is what the journal recorded about the newest restore.
func (r *run) restoreDetail(ctx context.Context) string {
	var evs struct {
		Result []struct {
			Type   string `json:"type"`
			Detail string `json:"detail"`
		} `json:"result"`
	}
	if err := r.m.mustTool(ctx, "journal_events", map[string]any{"limit": 20}, &evs); err != nil {
		return err.Error()
	}
	// The newest restore summary (steps applied, failed, objects created)
	// and the restorer's error, newest first.
	var parts []string
	seen := map[string]bool{}
	for i := len(evs.Result) - 1; i >= 0 && len(parts) < 2; i-- {
		if e := evs.Result[i]; (e.Type == "restore" || e.Type == "restored") && e.Detail != "" && !seen[e.Type] {
			seen[e.Type] = true
			parts = append(parts, e.Detail)
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "; journal: ")
	}
	return "no detail in journal_events"
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// stuckClient attaches a control-mode client that never reads its output
// to a session of its own, floods that session's pane, and holds the
// client there for a while before killing it. tmux stops reading a pane
// whose output such a client cannot take (reference section 3.9): the
// question is whether the server and everyone else's calls carry on.
func (r *run) stuckClient(ctx context.Context) Fault {
	f := Fault{Kind: FaultStuck, DetectedMs: -1, RecoveredMs: -1}
	before, _ := r.inventory(ctx)
	f.ObjectsBefore = len(before)
	const sess = "scratch-flood" // not in the inventory: it is the fault's own
	var win struct {
		Pane string `json:"active_pane_id"`
	}
	if err := r.m.mustTool(ctx, "create_session", map[string]any{"session_name": sess, "window_name": sess, "x": 80, "y": 24}, nil); err != nil {
		f.Skipped = err.Error()
		return f
	}
	defer r.tmuxRun(context.WithoutCancel(ctx), 5*time.Second, "kill-session", "-t", "="+sess) //nolint:errcheck // best effort
	out, err := r.tmuxRun(ctx, 5*time.Second, "display-message", "-p", "-t", sess+":0.0", "#{pane_id}")
	if err != nil {
		f.Skipped = err.Error()
		return f
	}
	win.Pane = out
	if err := r.waitPrompt(ctx, win.Pane); err != nil {
		f.Skipped = err.Error()
		return f
	}
	// tmux has no client that stops reading on purpose (its
	// control client always drains), so this one fault starts the tmux
	// client itself, with the argv and environment the exec transport
	// would use.
	argv := r.x.Command("-C", "attach-session", "-t", "="+sess)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = r.x.Environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		f.Skipped = err.Error()
		return f
	}
	if _, err := cmd.StdoutPipe(); err != nil { // never read
		f.Skipped = err.Error()
		return f
	}
	errs := r.errorCount()
	t := time.Now()
	f.At = r.since(t)
	if err := cmd.Start(); err != nil {
		f.Skipped = "start control client: " + err.Error()
		return f
	}
	r.track(loadtest.RefOf(cmd.Process.Pid))
	// 1 MB of output: far more than the pipe to the stuck client holds.
	if err := r.typeLine(ctx, win.Pane, "yes flood-line | head -n 100000; echo flood-fini''shed"); err != nil {
		f.Note = err.Error()
	}
	hold := r.cfg.stuckFor
	var probes, failed int
	var worst time.Duration
	for end := time.Now().Add(hold); time.Now().Before(end); {
		s := time.Now()
		_, err := r.tmuxRun(ctx, 3*time.Second, "list-sessions")
		probes++
		worst = max(worst, time.Since(s))
		if err != nil {
			failed++
		}
		sleepCtx(ctx, 250*time.Millisecond) //nolint:errcheck // the loop ends on time
	}
	// The marker is quoted apart on the command line, so only the echo's
	// output matches a line that is exactly the marker.
	finished := func() bool {
		out, err := r.tmuxRun(ctx, 3*time.Second, "capture-pane", "-p", "-t", win.Pane)
		if err != nil {
			return false
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.TrimSpace(line) == "flood-finished" {
				return true
			}
		}
		return false
	}
	during := finished()
	cmd.Process.Kill() //nolint:errcheck // our own child
	stdin.Close()
	cmd.Wait() //nolint:errcheck // killed
	after := during
	for deadline := time.Now().Add(10 * time.Second); !after && time.Now().Before(deadline); {
		sleepCtx(ctx, 100*time.Millisecond) //nolint:errcheck
		after = finished()
	}
	f.Check = "the server answered every raw list-sessions (3 s deadline) while the stuck client was attached"
	f.CheckPass = failed == 0
	flood := "finished while the client was attached"
	switch {
	case !during && after:
		flood = "stalled while the client was attached (tmux stopped reading the pane) and finished once it was killed"
	case !during:
		flood = "had not finished 10 s after the client was killed"
	}
	f.Note = fmt.Sprintf("%d probes over %s, %d failed, slowest %s; a 1 MB flood in the client's session %s",
		probes, hold, failed, worst.Round(time.Millisecond), flood)
	f.Lost = r.waitInventory(ctx, before, 10*time.Second)
	f.Errors = r.errorCount() - errs
	f.End = r.since(time.Now())
	return f
}

// exitEmpty starts a server of the harness's own with tmux's defaults
// (exit-empty on) and one pane running cat, lets tmux-mcp adopt it, then
// ends cat: the pane, its session and, if nothing else holds the server,
// the server end, as in the field when an agent's command exits.
func (r *run) exitEmpty(ctx context.Context) Fault {
	f := Fault{Kind: FaultExitEmpty, DetectedMs: -1, RecoveredMs: -1}
	const name = "ee"
	path := filepath.Join(r.dir, "tmux-"+strconv.Itoa(os.Geteuid()), name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		f.Skipped = err.Error()
		return f
	}
	x := &tmux.Exec{Socket: tmux.Socket{Path: path}, Config: "/dev/null"}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := x.Run(cctx, "new-session", "-d", "-s", name, "-x", "80", "-y", "24", "cat"); err != nil {
		f.Skipped = "start a server with exit-empty on: " + err.Error()
		return f
	}
	out, err := x.Run(cctx, "display-message", "-p", "#{pid}")
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid == 0 {
		f.Skipped = fmt.Sprintf("no PID of the exit-empty server: %v", err)
		return f
	}
	ref := loadtest.RefOf(pid)
	r.track(ref)
	// tmux-mcp adopts the server on its first call there.
	if err := r.m.mustTool(cctx, "list_sessions", map[string]any{"socket_name": name}, nil); err != nil {
		f.Skipped = "tmux-mcp did not adopt the server: " + err.Error()
		return f
	}
	mark := r.m.mark()
	t := time.Now()
	f.At = r.since(t)
	if _, err := x.Run(cctx, "send-keys", "-t", name+":0.0", "C-d"); err != nil {
		f.Note = "send C-d: " + err.Error()
	}
	// Wait for the session to end, then give the server a moment to
	// exit if it is going to.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if _, err := x.Run(cctx, "has-session", "-t", "="+name); err != nil {
			break
		}
		sleepCtx(ctx, 20*time.Millisecond) //nolint:errcheck
	}
	for deadline := time.Now().Add(time.Second); ref.Same() && time.Now().Before(deadline); {
		sleepCtx(ctx, 20*time.Millisecond) //nolint:errcheck
	}
	f.Died = !ref.Same()
	if !f.Died {
		f.Note = "the server outlived its last pane: tmux-mcp's hidden control-mode session keeps an adopted server from being empty"
		f.Check = "the server stayed up after its last visible pane exited"
		f.CheckPass = true
		f.End = r.since(time.Now())
		return f
	}
	if e, ok := r.m.waitEvent(ctx, mark, 20*time.Second, func(e event) bool { return e.socket == name && e.kind == "server_died" }); ok {
		f.DetectedMs, f.Cause = ms(e.at.Sub(t)), e.cause
	}
	f.Check = "classified as last_session (an intended exit: no restart loop)"
	f.CheckPass = f.Cause == "last_session"
	f.Note = "the pane's program ended and the server exited with it (exit-empty on); tmux-mcp starts a server there again only when a call needs one"
	f.End = r.since(time.Now())
	return f
}

// fdLimit has a second tmux-mcp start its server under a small fd limit
// (TMUX_MCP_FD_LIMIT) and keeps creating windows in it: tmux livelocks
// near its fd limit, so the supervisor must refuse new panes first.
func (r *run) fdLimit(ctx context.Context) Fault {
	f := Fault{Kind: FaultFDLimit, DetectedMs: -1, RecoveredMs: -1}
	sock := filepath.Join(r.dir, "fdl")
	env := r.mcpEnv("TMUX_MCP_SOCKET_PATH="+sock, "TMUX_MCP_JOURNAL=off", "TMUX_MCP_FD_LIMIT="+strconv.Itoa(r.cfg.fdLimit),
		"TMUX_MCP_LOG_FILE="+filepath.Join(r.dir, "tmux-mcp-fdl.log"))
	m, err := startMCP(ctx, r.cfg.bin, env)
	if err != nil {
		f.Skipped = err.Error()
		return f
	}
	r.mu.Lock()
	r.extra = append(r.extra, m)
	r.mu.Unlock()
	r.track(loadtest.RefOf(m.pid()))
	t := time.Now()
	f.At = r.since(t)
	if err := m.mustTool(ctx, "create_session", map[string]any{"session_name": "fdl", "x": 80, "y": 24}, nil); err != nil {
		f.Skipped = "create a session under the fd limit: " + err.Error()
		return f
	}
	h, _ := m.health(ctx, "")
	ref := loadtest.RefOf(h.PID)
	r.track(ref)
	created, refusedAt := 1, ""
	for i := 0; i < 3*r.cfg.fdLimit && ctx.Err() == nil; i++ {
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		res, err := m.tool(cctx, "create_window", map[string]any{"session_name": "fdl"})
		cancel()
		if err == nil && res.Class == "" {
			created++
			continue
		}
		hh, _ := m.health(ctx, "")
		refusedAt = fmt.Sprintf("refused window %d (%s) at %d of %d fds", created+1, orDash(res.Class), hh.FDs, hh.FDLimit)
		break
	}
	x := &tmux.Exec{Socket: tmux.Socket{Path: sock}, Config: "/dev/null"}
	x.SetNoStart(true)
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	_, answerErr := x.Run(cctx, "list-sessions")
	cancel()
	f.Died = !ref.Same()
	f.Check = "the server still answers (3 s deadline) after windows were created up to the limit"
	f.CheckPass = answerErr == nil && !f.Died
	if refusedAt == "" {
		refusedAt = "no refusal"
	}
	f.Note = fmt.Sprintf("fd limit %d: %d windows created, %s", r.cfg.fdLimit, created, refusedAt)
	if answerErr != nil {
		f.Note += "; list-sessions: " + answerErr.Error()
	}
	f.End = r.since(time.Now())
	return f
}

// ptyMax is the size of the private devpts instance of the PTY fault.
const ptyMax = 6

// ptyPressure runs a server of the harness's own in a private mount
// namespace whose devpts allows ptyMax PTYs (unshare -m, mount -t devpts
// -o newinstance,max=N), lets tmux-mcp adopt it and creates windows
// through tmux-mcp until tmux runs out of PTYs. The machine's own
// /dev/pts is not touched. It needs root and unshare; without them it is
// skipped with the reason.
func (r *run) ptyPressure(ctx context.Context) Fault {
	f := Fault{Kind: FaultPTY, DetectedMs: -1, RecoveredMs: -1, At: r.since(time.Now())}
	unshare, err := exec.LookPath("unshare")
	switch {
	case os.Geteuid() != 0:
		f.Skipped = "PTY exhaustion needs root (a private devpts mount); lowering the machine-wide /proc/sys/kernel/pty/max would break other users' terminals"
		return f
	case err != nil:
		f.Skipped = "PTY exhaustion needs unshare(1) for a private devpts mount: " + err.Error()
		return f
	}
	const name = "pty"
	path := filepath.Join(r.dir, "tmux-"+strconv.Itoa(os.Geteuid()), name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		f.Skipped = err.Error()
		return f
	}
	x := &tmux.Exec{Socket: tmux.Socket{Path: path}, Config: "/dev/null"}
	// The tmux client starts the server inside the namespace (it forks
	// the server there); the argv is the exec transport's own.
	script := fmt.Sprintf("mount -t devpts -o newinstance,ptmxmode=0666,max=%d devpts /dev/pts && mount --bind /dev/pts/ptmx /dev/ptmx && exec %s",
		ptyMax, shellquote.Join(x.Command("new-session", "-d", "-s", name, "-x", "80", "-y", "24", "cat")))
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, unshare, "-m", "--propagation", "private", "sh", "-c", script)
	cmd.Env = x.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		f.Skipped = fmt.Sprintf("could not start a server with a private devpts (%v): %s", err, strings.TrimSpace(string(out)))
		return f
	}
	out, err := x.Run(cctx, "display-message", "-p", "#{pid}")
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid == 0 {
		f.Skipped = fmt.Sprintf("no PID of the PTY server: %v", err)
		return f
	}
	ref := loadtest.RefOf(pid)
	r.track(ref)
	created, failure := 0, "no failure"
	for i := 0; i < 2*ptyMax && ctx.Err() == nil; i++ {
		res, err := r.m.tool(cctx, "create_window", map[string]any{"session_name": name, "socket_name": name})
		if err == nil && res.Class == "" {
			created++
			continue
		}
		failure = fmt.Sprintf("then %s: %s", orDash(res.Class), loadtest.FirstLine(res.Text))
		if err != nil {
			failure = "then " + err.Error()
		}
		break
	}
	actx, acancel := context.WithTimeout(ctx, 3*time.Second)
	_, answerErr := x.Run(actx, "list-sessions")
	acancel()
	f.Died = !ref.Same()
	f.Check = "the server still answers (3 s deadline) after it ran out of PTYs, and tmux-mcp said why"
	f.CheckPass = answerErr == nil && !f.Died && strings.Contains(failure, "spawn_failed")
	f.Note = fmt.Sprintf("private devpts with max=%d: tmux-mcp created %d windows, %s", ptyMax, created, failure)
	if answerErr != nil {
		f.Note += "; list-sessions: " + answerErr.Error()
	}
	f.End = r.since(time.Now())
	return f
}
