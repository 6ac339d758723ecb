//go:build linux

package loadtest

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRef(t *testing.T) {
	self := RefOf(os.Getpid())
	tests := []struct {
		name string
		ref  Ref
		want bool
	}{
		{"this process", self, true},
		{"another start time", Ref{PID: self.PID, start: self.start + 1}, false},
		{"no PID", Ref{}, false},
	}
	for _, tt := range tests {
		if got := tt.ref.Same(); got != tt.want {
			t.Errorf("%s: Same = %v, want %v", tt.name, got, tt.want)
		}
	}
	if (Ref{PID: self.PID, start: self.start + 1}).Signal(syscall.Signal(0)) {
		t.Errorf("Signal went to a process that is not the one referenced")
	}
}

// TestReap: a process that names the run's directory (in its
// environment, as a pane's program does through TMUX) is killed and
// reported; this process is never.
func TestReap(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", "sleep 60")
	cmd.Env = append(os.Environ(), "TMUX="+dir+"/main,1,0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// The shell may exec sleep, or fork it: either way each names dir.
	naming := ProcessesNaming(dir)
	if !slices.ContainsFunc(naming, func(r Ref) bool { return r.PID == cmd.Process.Pid }) {
		t.Fatalf("ProcessesNaming = %v, want the child %d among them", naming, cmd.Process.Pid)
	}
	if slices.ContainsFunc(naming, func(r Ref) bool { return r.PID == os.Getpid() }) {
		t.Errorf("ProcessesNaming = %v includes this process", naming)
	}
	leaked := Reap(dir, []Ref{RefOf(cmd.Process.Pid)}, 0)
	if len(leaked) == 0 || !strings.HasPrefix(leaked[0], strconv.Itoa(cmd.Process.Pid)+" (") {
		t.Errorf("Reap = %q, want the child %d described first", leaked, cmd.Process.Pid)
	}
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Errorf("child ended with %v, want SIGKILL", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill() //nolint:errcheck // our own child
		t.Fatal("child still runs after Reap")
	}
}
