package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime/debug"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestSampleResourcesRealServer(t *testing.T) {
	s := tmuxtest.New(t)
	pid := s.Start("x")
	s.MustTmux("new-window", "-d", "-t", "x")
	ctx := context.Background()

	first, err := SampleResources(ctx, pid, nil)
	if err != nil {
		t.Fatalf("SampleResources: %v", err)
	}
	if first.PID != pid || first.FDs <= 0 || first.FDLimit == 0 || first.RSS == 0 || first.Threads <= 0 || first.PTYMax <= 0 {
		t.Errorf("first sample = %+v; want PID %d and FDs, FDLimit, RSS, Threads, PTYMax > 0", first, pid)
	}
	if first.CPUPercent != 0 {
		t.Errorf("first sample CPUPercent = %v, want 0 without a previous sample", first.CPUPercent)
	}
	if first.SampledAt.IsZero() {
		t.Error("SampledAt is zero")
	}
	// Two panes hold two ptmx fds, plus the listening socket.
	if first.FDs < 3 {
		t.Errorf("FDs = %d, want at least 3 for a server with two panes", first.FDs)
	}
	if first.PTYs < 2 {
		t.Errorf("PTYs = %d, want at least the server's 2", first.PTYs)
	}

	// Make the server work so the CPU delta is positive.
	for range 20 {
		s.MustTmux("capture-pane", "-p", "-t", "x", "-S", "-")
	}
	second, err := SampleResources(ctx, pid, &first)
	if err != nil {
		t.Fatalf("second SampleResources: %v", err)
	}
	if second.CPUTime < first.CPUTime || second.CPUPercent < 0 || second.CPUPercent > 100*float64(4) {
		t.Errorf("second sample CPUTime %v (first %v), CPUPercent %v; want non-decreasing and a plausible percentage",
			second.CPUTime, first.CPUTime, second.CPUPercent)
	}
	// A previous sample of another process gives no CPU percentage.
	other := first
	other.PID = pid + 1
	other.CPUTime = 0
	if third, err := SampleResources(ctx, pid, &other); err != nil || third.CPUPercent != 0 {
		t.Errorf("sample with another PID's prev: CPUPercent %v, err %v; want 0, nil", third.CPUPercent, err)
	}
}

func TestSampleResourcesFDLimit(t *testing.T) {
	// A child with a known soft limit: the value the sampler reads must be it.
	cmd := exec.Command("sh", "-c", "ulimit -n 77 && exec sleep 30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill() //nolint:errcheck // our own child
		cmd.Wait()         //nolint:errcheck
	}()
	var r Resources
	tmuxtest.WaitFor(t, 5*time.Second, "the child to exec sleep", func() bool {
		var err error
		r, err = SampleResources(context.Background(), cmd.Process.Pid, nil)
		return err == nil && r.FDLimit == 77
	})
	if r.FDs < 3 {
		t.Errorf("FDs = %d, want at least stdin, stdout and stderr", r.FDs)
	}
}

func TestSampleResourcesErrors(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	_, err := SampleResources(context.Background(), cmd.Process.Pid, nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("SampleResources(gone) = %v, want os.ErrNotExist", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SampleResources(ctx, os.Getpid(), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("SampleResources(cancelled) = %v, want context.Canceled", err)
	}
}

// TestSampleResourcesLeavesNoFD checks that sampling closes what it
// opens: with the garbage collector off, a hundred samples leave the
// process's fd count where it was.
func TestSampleResourcesLeavesNoFD(t *testing.T) {
	fds := func() int {
		t.Helper()
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skipf("no /proc/self/fd: %v", err)
		}
		return len(ents)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	before := fds()
	for range 100 {
		if _, err := SampleResources(context.Background(), os.Getpid(), nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := fds(); got > before+2 {
		t.Errorf("fds after 100 samples = %d, want about %d", got, before)
	}
}
