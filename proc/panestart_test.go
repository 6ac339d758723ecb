package proc

import (
	"os/exec"
	"runtime"
	"testing"
)

// TestPaneStarting: a child that still runs its parent's executable (a
// tmux server's fork before exec) is starting; one that runs another
// program is not. /proc tells only on Linux.
func TestPaneStarting(t *testing.T) {
	start := func(name string, args ...string) int {
		t.Helper()
		cmd := exec.Command(name, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill() //nolint:errcheck // our own child
			cmd.Wait()         //nolint:errcheck // killed
		})
		return cmd.Process.Pid
	}
	// Two processes of one executable stand for the server and its fork.
	server := start("sleep", "60")
	same := start("sleep", "60")
	other := start("tail", "-f", "/dev/null")
	linux := runtime.GOOS == "linux"
	tests := []struct {
		name        string
		server, pid int
		want        bool
	}{
		{"same executable", server, same, linux},
		{"another program", server, other, false},
		{"no pane pid", server, 0, false},
		{"no server pid", 0, same, false},
	}
	for _, tt := range tests {
		if got := PaneStarting(tt.server, tt.pid); got != tt.want {
			t.Errorf("%s: PaneStarting = %v, want %v", tt.name, got, tt.want)
		}
	}
}
