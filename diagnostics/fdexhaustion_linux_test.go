package diagnostics

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// Linux only: it lowers a running server's fd limit with prlimit(2), which
// macOS does not have.

// TestFDExhaustion: a server whose fd limit is tiny is driven to it with
// new windows until it livelocks (it stops answering and spins).
func TestFDExhaustion(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("main")
	// A livelocked server spins until killed, and answers no kill-server:
	// end it at once rather than load the machine through tmuxtest's
	// cleanup timeouts.
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	var lim unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &lim); err != nil {
		t.Fatal(err)
	}
	lim.Cur = 24
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
		t.Fatal(err)
	}
	// Open windows until a command hangs with the server at the edge of
	// its limit: fd exhaustion livelocks tmux instead of failing the
	// command. (A command can also hang because the machine is busy; then
	// the fds are not there yet and the loop goes on.)
	livelocked := false
	for i := 0; i < 40 && !livelocked; i++ {
		_, err := ts.TmuxWithin(3*time.Second, "new-window", "-d")
		livelocked = err != nil && openFDs(pid) >= 21
	}
	if !livelocked {
		t.Fatalf("the server never livelocked under an fd limit of 24 (%d fds open)", openFDs(pid))
	}
	r := diagnose(t, tmux.Socket{Path: ts.Socket}, func(o *Options) { o.ProbeTimeout = time.Second })
	wantTop(t, r, string(death.CauseFDLivelock), ExitFailures)
	if c := check(t, r.Servers[0], "server.process"); c.Status != StatusFail {
		t.Errorf("server.process = %s (%s), want fail", c.Status, c.Summary)
	}
}

// openFDs counts pid's open fds in /proc/PID/fd.
func openFDs(pid int) int {
	fds, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	return len(fds)
}
