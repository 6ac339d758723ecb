package proc

import (
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestDescendantsBothWays: a process's subtree read from procfs's
// children files is the one the whole process table (gopsutil, the
// fallback and the macOS way) gives.
func TestDescendantsBothWays(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 100 & (sleep 100 & wait) & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a group of its own, killed whole below
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // gone already is fine
		cmd.Wait()                                      //nolint:errcheck // killed
	})
	ctx := t.Context()
	var got, want []int
	tmuxtest.WaitFor(t, 5*time.Second, "its three processes", func() bool {
		got, _, _ = Descendants(ctx, cmd.Process.Pid)
		tree, _, _ := processTree(ctx, cmd.Process.Pid)
		want = below(tree, cmd.Process.Pid)
		slices.Sort(got)
		slices.Sort(want)
		return len(want) == 3 && slices.Equal(got, want)
	})
	if _, alive, err := Descendants(ctx, 1<<30); alive || err != nil {
		t.Errorf("descendants of a PID that does not exist: alive %v, err %v; want not alive, no error", alive, err)
	}
}
