package agentstub

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// Pane is a CLI running in the only pane of a private tmux server
// (tmuxtest: its own socket, -f /dev/null, killed when the test ends).
type Pane struct {
	t      testing.TB
	Server *tmuxtest.Server
	// Target is the pane's tmux target.
	Target string
}

// Run starts l in a new 120x40 pane of a private tmux server.
func Run(t testing.TB, l Launch) *Pane {
	t.Helper()
	srv := tmuxtest.New(t)
	args := append([]string{"new-session", "-d", "-s", "agent", "-x", "120", "-y", "40", "--"}, l.CommandArgs()...)
	srv.MustTmux(args...)
	p := &Pane{t: t, Server: srv, Target: "=agent:0.0"}
	if srv.MustTmux("display-message", "-p", "-t", p.Target, "#{window_width}x#{window_height}") != "120x40" {
		srv.MustTmux("resize-window", "-t", "=agent:0", "-x", "120", "-y", "40")
	}
	srv.PID()
	return p
}

// Attach is a CLI already running in pane target of srv, started by the
// test some other way (through tmux-mcp, or restored by its journal).
func Attach(t testing.TB, srv *tmuxtest.Server, target string) *Pane {
	return &Pane{t: t, Server: srv, Target: target}
}

// Capture returns the pane's visible text (capture-pane -p), lines
// right-trimmed.
func (p *Pane) Capture() string {
	p.t.Helper()
	return p.Server.MustTmux("capture-pane", "-p", "-t", p.Target)
}

// WaitScreen polls the pane until cond holds for its text and returns that
// text; it fails the test, showing the screen, at the deadline.
func (p *Pane) WaitScreen(what string, timeout time.Duration, cond func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	var screen string
	for {
		out, err := p.Server.Tmux("capture-pane", "-p", "-t", p.Target)
		if err == nil {
			screen = out
			if cond(screen) {
				return screen
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("agentstub: timed out after %v waiting for %s; screen:\n%s", timeout, what, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitStill waits for the screen to stay the same for quiet and returns
// it. A CLI has then handled every key sent before the wait began: what it
// drew for them is on the screen, and quiet has passed on its clock since
// (Gemini CLI takes an Enter within 30 ms of a typed or pasted key for a
// new line, not a submission).
func (p *Pane) WaitStill(what string, quiet, timeout time.Duration) string {
	p.t.Helper()
	last, since := "", time.Now()
	return p.WaitScreen(what+" (a still screen)", timeout, func(s string) bool {
		if s != last {
			last, since = s, time.Now()
			return false
		}
		return time.Since(since) >= quiet
	})
}

// WaitText waits for s to be on the screen.
func (p *Pane) WaitText(s string, timeout time.Duration) string {
	p.t.Helper()
	return p.WaitScreen("\""+s+"\" on screen", timeout, func(screen string) bool { return strings.Contains(screen, s) })
}

// Paste puts text in the pane as a paste (load-buffer, then paste-buffer
// -p: bracketed when the program asked for it).
func (p *Pane) Paste(text string) {
	p.t.Helper()
	f := filepath.Join(p.t.TempDir(), "paste")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		p.t.Fatalf("agentstub: %v", err)
	}
	p.Server.MustTmux("load-buffer", "-b", "agentstub", f)
	p.Server.MustTmux("paste-buffer", "-p", "-d", "-b", "agentstub", "-t", p.Target)
}

// Keys sends tmux key names (send-keys).
func (p *Pane) Keys(keys ...string) {
	p.t.Helper()
	p.Server.MustTmux(append([]string{"send-keys", "-t", p.Target}, keys...)...)
}

// PID is the pane's process.
func (p *Pane) PID() string {
	p.t.Helper()
	return p.Server.MustTmux("display-message", "-p", "-t", p.Target, "#{pane_pid}")
}

// Tree is the process tree under the pane's process (ps --forest).
func (p *Pane) Tree() string {
	p.t.Helper()
	pid := p.PID()
	out, err := exec.Command("ps", "-e", "-o", "pid=,ppid=,args=", "--forest").Output()
	if err != nil {
		return "ps: " + err.Error()
	}
	// Keep the pane's process and its descendants.
	keep := map[string]bool{pid: true}
	var lines []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		if keep[f[0]] || keep[f[1]] {
			keep[f[0]] = true
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// EndWithServer makes the test's end wait for the CLIs under srv: when
// the test ends it ends srv (tmuxtest's Kill) and waits, up to 10 s, for
// every process that ran in its panes to exit, so that none is still
// writing to the CLI's home when the test's temporary directories are
// removed. Call it after Launch and after the server was made: cleanups
// run last first.
func EndWithServer(t testing.TB, srv *tmuxtest.Server) {
	t.Helper()
	t.Cleanup(func() {
		var pids []int
		if out, err := srv.Tmux("list-panes", "-a", "-F", "#{pane_pid}"); err == nil {
			for _, f := range strings.Fields(out) {
				if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
					pids = append(pids, pid)
				}
			}
		}
		pids = append(pids, below(pids)...)
		srv.Kill()
		deadline := time.Now().Add(10 * time.Second)
		for _, pid := range pids {
			for running(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
		}
	})
}

// below returns the descendants of pids (ps).
func below(pids []int) []int {
	out, err := exec.Command("ps", "-e", "-o", "pid=,ppid=").Output()
	if err != nil {
		return nil
	}
	keep := map[int]bool{}
	for _, p := range pids {
		keep[p] = true
	}
	var found []int
	for changed := true; changed; {
		changed = false
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) != 2 {
				continue
			}
			pid, _ := strconv.Atoi(f[0])
			ppid, _ := strconv.Atoi(f[1])
			if keep[ppid] && !keep[pid] {
				keep[pid], changed = true, true
				found = append(found, pid)
			}
		}
	}
	return found
}

// running reports whether pid still runs (exists and is not a zombie).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
