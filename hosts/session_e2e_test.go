package hosts_test

import (
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
)

// TestHostsOutliveTheirSession: the end of the ssh session the host's
// tmux-mcp runs in (every process of that session killed, as logind with
// KillUserProcesses=yes or a hangup ends a login) leaves the tmux server
// that tmux-mcp started and its panes running: the next connection finds
// the same server, the same sessions and the same shells in their panes,
// with no restart and no restore (issue 43: the server was in the ssh
// session and died with it).
func TestHostsOutliveTheirSession(t *testing.T) {
	bin := e2etest.Binary(t)
	h := startSimHost(t, "alpha", bin)
	f := startHostURL(t, bin, h, h.sshd.URL("alpha"))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("local tmux-mcp's log:\n%s", f.stderr)
		}
	})
	f.awaitUp(t, "alpha", 30*time.Second)
	pane := f.session(t, "alpha", "s-keep")
	if got := strings.TrimSpace(f.run(t, "alpha", pane, "echo before-$((2*3))")); got != "before-6" {
		t.Fatalf("run_command: %q", got)
	}
	serverPID := h.pid(t, "#{pid}")
	panePID := h.pid(t, "#{pane_pid}")
	remote := pidsOf(h.sshd.SessionProcesses(), bin)
	if len(remote) == 0 {
		t.Fatal("no tmux-mcp runs on alpha")
	}
	before := f.hosts(t)["alpha"].Connects

	killed := h.sshd.EndSessions()
	for _, pid := range remote {
		if !slices.Contains(killed, pid) {
			t.Fatalf("the session's end did not reach the host's tmux-mcp (pid %d; killed %v)", pid, killed)
		}
	}
	if slices.Contains(killed, serverPID) {
		t.Errorf("the session's end killed the tmux server (pid %d): it was in the ssh session", serverPID)
	}
	for _, pid := range []int{serverPID, panePID} {
		if syscall.Kill(pid, 0) != nil {
			t.Errorf("pid %d (the tmux server %d, the pane's shell %d) did not outlive the ssh session", pid, serverPID, panePID)
		}
	}

	f.awaitReconnect(t, "alpha", before, 30*time.Second)
	if got := f.sessionsOn(t, "alpha"); !slices.Contains(got, "s-keep") {
		t.Fatalf("alpha's sessions after the session's end: %v", got)
	}
	if got := h.pid(t, "#{pid}"); got != serverPID {
		t.Errorf("alpha's tmux server is pid %d, was %d: a new server", got, serverPID)
	}
	// The same shell: the pane's process is the one from before.
	if got := strings.TrimSpace(f.run(t, "alpha", pane, "echo $$")); got != strconv.Itoa(panePID) {
		t.Errorf("the pane's shell is pid %s, was %d", got, panePID)
	}
	var health struct {
		Restarts int `json:"restarts"`
	}
	e2etest.Decode(t, f.call(t, 10*time.Second, "server_health", map[string]any{"host": "alpha"}), &health)
	if health.Restarts != 0 {
		t.Errorf("the host's supervisor restarted its server %d times: %+v", health.Restarts, health)
	}
}

// pid reads a PID format of the host's tmux server (its own, or its first
// pane's).
func (h *simHost) pid(t *testing.T, format string) int {
	t.Helper()
	out, err := h.tmux(t, "display-message", "-p", "-t", "s-keep", format)
	if err != nil {
		t.Fatalf("%s: display-message %s: %v %s", h.name, format, err, out)
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || n <= 0 {
		t.Fatalf("%s: %s = %q", h.name, format, out)
	}
	return n
}
