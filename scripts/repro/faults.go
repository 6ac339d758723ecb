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

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
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
var AllFaults = []string{FaultKill, FaultSocket, FaultHang, FaultStuck, FaultExitEmpty, FaultFDLimit, FaultPTY}

// inject runs one fault and returns what followed.
func (r *run) inject(ctx context.Context, kind string) Fault {
	switch kind {
	case FaultKill:
		return r.outage(ctx, kind, func(p procRef) { p.signal(syscall.SIGKILL) })
	case FaultSocket:
		return r.outage(ctx, kind, func(procRef) { os.Remove(r.sock) })
	case FaultHang:
		return r.outage(ctx, kind, func(p procRef) {
			p.signal(syscall.SIGSTOP)
			// Resume it after the hung bound has passed, unless the
			// supervisor has ended it by then (same() checks the PID's
			// start time, so no other process is signalled).
			time.AfterFunc(r.cfg.hungAfter+2*time.Second, func() { p.signal(syscall.SIGCONT) })
		})
	case FaultStuck:
		return r.stuckClient(ctx)
	case FaultExitEmpty:
		return r.exitEmpty(ctx)
	case FaultFDLimit:
		return r.fdLimit(ctx)
	case FaultPTY:
		return Fault{Kind: kind, DetectedMs: -1, RecoveredMs: -1, At: r.since(time.Now()),
			Skipped: "PTY exhaustion needs either a lower machine-wide /proc/sys/kernel/pty/max (this machine is shared: " +
				"other users' terminals would fail) or a private devpts instance in a mount namespace, which this harness does not set up"}
	}
	return Fault{Kind: kind, Skipped: "unknown fault", DetectedMs: -1, RecoveredMs: -1}
}

// outage injects a fault that takes the main server away from its clients
// (killed, socket deleted, hung), then measures how long tmux-mcp took to
// report it and to bring the server and its journaled objects back.
func (r *run) outage(ctx context.Context, kind string, do func(procRef)) Fault {
	f := Fault{Kind: kind, DetectedMs: -1, RecoveredMs: -1, Recoverable: true, Died: true}
	r.waitJournaled(ctx)
	before, err := r.inventory(ctx)
	if err != nil {
		f.Note = "no inventory before the fault: " + err.Error()
	}
	f.ObjectsBefore = len(before)
	pid := refOf(r.serverPID(ctx))
	if pid.pid == 0 {
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
		if e.kind == "restored" && !e.ok {
			f.Note = "tmux-mcp reported the restore as failed"
		}
	} else if e, ok := r.m.waitEvent(ctx, mark, time.Second, onMain("restarted")); ok {
		f.RecoveredMs = ms(e.at.Sub(t))
		f.Note = "restarted without a restore event"
	}
	if pid.same() {
		if kind == FaultHang {
			f.Note = strings.TrimPrefix(f.Note+"; the stopped server was resumed, not replaced", "; ")
		} else if kind == FaultKill {
			f.Note = "the server survived SIGKILL?"
		}
	}
	if pid.same() && kind == FaultSocket {
		f.Note = "the same server answers again (socket recreated, not restarted)"
	}
	r.track(refOf(r.serverPID(ctx)))
	f.Lost = r.waitInventory(ctx, before, 20*time.Second)
	f.Errors = r.errorCount() - errs
	f.End = r.since(time.Now())
	r.lastChange = time.Now()
	return f
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// stuckClient attaches a control-mode client to the chatty session and
// never reads its output, for a while, then kills it. tmux stops reading
// a pane whose output such a client cannot take: the question is whether
// the server and everyone else's calls carry on.
func (r *run) stuckClient(ctx context.Context) Fault {
	f := Fault{Kind: FaultStuck, DetectedMs: -1, RecoveredMs: -1}
	before, _ := r.inventory(ctx)
	f.ObjectsBefore = len(before)
	// supervisor/tmux has no client that stops reading on purpose (its
	// control client always drains), so this one fault starts the tmux
	// client itself, with the argv and environment the exec transport
	// would use.
	argv := r.x.Command("-C", "attach-session", "-t", "chatty")
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
	r.track(refOf(cmd.Process.Pid))
	first := r.chattyCount(ctx)
	hold := r.cfg.stuckFor
	var probes, slow int
	var worst time.Duration
	for end := time.Now().Add(hold); time.Now().Before(end); {
		s := time.Now()
		_, err := r.tmuxRun(ctx, 3*time.Second, "list-sessions")
		probes++
		if d := time.Since(s); d > worst {
			worst = d
		}
		if err != nil {
			slow++
		}
		sleepCtx(ctx, 250*time.Millisecond) //nolint:errcheck // the loop ends on time
	}
	last := r.chattyCount(ctx)
	cmd.Process.Kill() //nolint:errcheck // our own child
	stdin.Close()
	cmd.Wait() //nolint:errcheck // killed
	after := r.chattyCount(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for after <= last && time.Now().Before(deadline) {
		sleepCtx(ctx, 100*time.Millisecond) //nolint:errcheck
		after = r.chattyCount(ctx)
	}
	f.Check = "the server answered every raw list-sessions (3 s deadline) while the stuck client was attached"
	f.CheckPass = slow == 0
	stalled := "kept printing"
	if last <= first {
		stalled = "stalled (tmux stopped reading it)"
	}
	f.Note = fmt.Sprintf("%d probes over %s, %d failed, slowest %s; the chatty pane %s (line %d -> %d), and after the client was killed it reached line %d",
		probes, hold, slow, worst.Round(time.Millisecond), stalled, first, last, after)
	f.Lost = r.waitInventory(ctx, before, 10*time.Second)
	f.Errors = r.errorCount() - errs
	f.End = r.since(time.Now())
	return f
}

// chattyCount is the last line number the chatty pane shows, 0 if unknown.
func (r *run) chattyCount(ctx context.Context) int {
	out, err := r.tmuxRun(ctx, 3*time.Second, "capture-pane", "-p", "-t", "chatty:"+targetChatty+".0")
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "chatty "); ok {
			if i, err := strconv.Atoi(v); err == nil && i > n {
				n = i
			}
		}
	}
	return n
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
	ref := refOf(pid)
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
	deadline := time.Now().Add(5 * time.Second)
	for ref.same() && time.Now().Before(deadline) {
		sleepCtx(ctx, 20*time.Millisecond) //nolint:errcheck
	}
	f.Died = !ref.same()
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
	r.track(refOf(m.pid()))
	t := time.Now()
	f.At = r.since(t)
	if err := m.mustTool(ctx, "create_session", map[string]any{"session_name": "fdl", "x": 80, "y": 24}, nil); err != nil {
		f.Skipped = "create a session under the fd limit: " + err.Error()
		return f
	}
	h, _ := m.health(ctx, "")
	ref := refOf(h.PID)
	r.track(ref)
	created, refusedAt := 1, ""
	for i := 0; i < 3*r.cfg.fdLimit && ctx.Err() == nil; i++ {
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		res, err := m.tool(cctx, "create_window", map[string]any{"session_name": "fdl"})
		cancel()
		if err == nil && res.class == "" {
			created++
			continue
		}
		hh, _ := m.health(ctx, "")
		refusedAt = fmt.Sprintf("refused window %d (%s) at %d of %d fds", created+1, orDash(res.class), hh.FDs, hh.FDLimit)
		break
	}
	x := &tmux.Exec{Socket: tmux.Socket{Path: sock}, Config: "/dev/null"}
	x.SetNoStart(true)
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	_, answerErr := x.Run(cctx, "list-sessions")
	cancel()
	f.Died = !ref.same()
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
