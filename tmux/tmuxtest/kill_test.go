package tmuxtest

import (
	"os/exec"
	"testing"
	"time"
)

// TestKillSparesAReusedPID: a server that died long ago may have left its
// PID to another process; Kill must signal the PID only while it names the
// server it recorded. The other process stands in for the reuse: a child
// of the test whose PID is recorded with another start time.
func TestKillSparesAReusedPID(t *testing.T) {
	for _, tt := range []struct {
		name       string
		startDelta uint64 // added to the child's real start time when recorded
		wantAlive  bool
	}{
		{"the recorded process", 0, false},
		{"a process that reused the PID", 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			child := exec.Command("sleep", "60")
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { child.Wait(); close(exited) }() //nolint:errcheck // the test reads exited
			t.Cleanup(func() {
				child.Process.Kill() //nolint:errcheck // our own child, by its handle
				<-exited
			})
			pid := child.Process.Pid
			start := startTime(pid)
			if start == 0 {
				t.Fatalf("no start time for PID %d", pid)
			}
			s := New(t) // no server runs on its socket: kill-server fails
			s.mu.Lock()
			s.pid, s.start = pid, start+tt.startDelta
			s.mu.Unlock()
			s.Kill()
			alive := true
			select {
			case <-exited:
				alive = false
			case <-time.After(500 * time.Millisecond):
			}
			if alive != tt.wantAlive {
				t.Errorf("after Kill: alive %v, want %v", alive, tt.wantAlive)
			}
		})
	}
}
