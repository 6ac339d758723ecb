package proc

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"go.uber.org/goleak"
)

func TestParseProcStat(t *testing.T) {
	// A command name with spaces and a parenthesis, as a hostile process
	// may choose.
	line := "4242 (tmux: se) rv) S 1 4242 4242 0 -1 4194560 1092 0 0 0 37 12 0 0 20 0 1 0 998877 6070272 980 18446744073709551615"
	got, err := parseProcStat(line)
	if err != nil {
		t.Fatal(err)
	}
	want := ProcStat{State: 'S', UTime: 37, STime: 12, StartTime: 998877}
	if got != want {
		t.Errorf("parseProcStat() = %+v, want %+v", got, want)
	}
	// The same process as it exits: PF_EXITING (0x4) in the flags.
	exiting := "4242 (tmux: se) rv) R 1 4242 4242 0 -1 4194564 1092 0 0 0 37 12 0 0 20 0 1 0 998877 6070272 980 18446744073709551615"
	if got, err := parseProcStat(exiting); err != nil || !got.Exiting {
		t.Errorf("parseProcStat(exiting) = %+v, %v; want Exiting", got, err)
	}
	for _, bad := range []string{"", "12 (x", "12 (x) S 1 2"} {
		if _, err := parseProcStat(bad); err == nil {
			t.Errorf("parseProcStat(%q): no error, want one", bad)
		}
	}
}

func TestPIDAlive(t *testing.T) {
	self := os.Getpid()
	st, err := StartTime(self)
	if err != nil || st == 0 {
		t.Fatalf("StartTime(self) = %d, %v; want > 0", st, err)
	}
	tests := []struct {
		name  string
		pid   int
		start uint64
		want  bool
	}{
		{"self", self, 0, true},
		{"self with its start time", self, st, true},
		{"self with another start time (PID reused)", self, st + 1, false},
		{"no such pid", 1 << 30, 0, false},
		{"zero", 0, 0, false},
	}
	for _, tt := range tests {
		if got := PIDAlive(tt.pid, tt.start); got != tt.want {
			t.Errorf("%s: PIDAlive(%d, %d) = %v, want %v", tt.name, tt.pid, tt.start, got, tt.want)
		}
	}
	// A zombie is not alive.
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	tmuxtest.WaitFor(t, 5*time.Second, "child to exit", func() bool { return !PIDAlive(pid, 0) })
	cmd.Wait() //nolint:errcheck
}

// TestExiting reads the kernel's own flag: a running process is not
// exiting, the same process killed and not yet reaped is (a zombie has
// passed through its whole exit), and a reaped or unknown one is neither.
func TestExiting(t *testing.T) {
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	st, err := StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	if Exiting(pid, st) {
		t.Fatalf("Exiting(running sleep %d) = true, want false", pid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the killed child to be a zombie", func() bool { return !PIDAlive(pid, st) })
	tests := []struct {
		name  string
		pid   int
		start uint64
		want  bool
	}{
		{"killed, not reaped", pid, st, true},
		{"killed, not reaped, any start time", pid, 0, true},
		{"another start time (PID reused)", pid, st + 1, false},
		{"no such pid", 1 << 30, 0, false},
		{"zero", 0, 0, false},
	}
	for _, tt := range tests {
		if got := Exiting(tt.pid, tt.start); got != tt.want {
			t.Errorf("%s: Exiting(%d, %d) = %v, want %v", tt.name, tt.pid, tt.start, got, tt.want)
		}
	}
	cmd.Wait() //nolint:errcheck // killed on purpose
	if Exiting(pid, st) {
		t.Errorf("Exiting(reaped %d) = true, want false", pid)
	}
}

func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck // our own child; may be gone
		cmd.Wait()         //nolint:errcheck
	})
	return cmd
}

func TestWatchExitExit(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cmd := startSleep(t)
	done, err := WatchExit(context.Background(), cmd.Process.Pid)
	if err != nil {
		t.Skipf("exit watch not available: %v", err)
	}
	select {
	case <-done:
		t.Fatal("channel closed while the process runs")
	default:
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("channel not closed 5s after the process was killed")
	}
	cmd.Wait() //nolint:errcheck
}

func TestWatchExitCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cmd := startSleep(t)
	ctx, cancel := context.WithCancel(context.Background())
	done, err := WatchExit(ctx, cmd.Process.Pid)
	if err != nil {
		cancel()
		t.Skipf("exit watch not available: %v", err)
	}
	cancel()
	// goleak waits for the two goroutines to end; the channel stays open.
	goleak.VerifyNone(t, goleak.IgnoreCurrent())
	select {
	case <-done:
		t.Error("channel closed after cancel, but the process still runs")
	default:
	}
}

func TestWatchExitGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	done, err := WatchExit(context.Background(), cmd.Process.Pid)
	if err != nil {
		t.Skipf("exit watch not available: %v", err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("channel for a reaped process not closed")
	}
}
