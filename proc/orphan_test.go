package proc

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestListenerPIDsFindsEveryServerClaimingAPath: a server whose socket was
// deleted still listens on the bound name; a second server started on the
// same path claims it too. Both are listed, and the orphan is found even
// though no file leads to it.
func TestListenerPIDsFindsEveryServerClaimingAPath(t *testing.T) {
	ts := tmuxtest.New(t)
	first := ts.Start("one")
	if got := ListenerPIDs(ts.Socket); !slices.Equal(got, []int{first}) {
		t.Fatalf("ListenerPIDs(live) = %v, want [%d]", got, first)
	}
	if err := os.Remove(ts.Socket); err != nil {
		t.Fatal(err)
	}
	if got := ListenerPIDs(ts.Socket); !slices.Equal(got, []int{first}) {
		t.Fatalf("ListenerPIDs(deleted) = %v, want [%d]", got, first)
	}
	// new-session on a missing socket starts a second server: the
	// orphaning the supervisor avoids, done here on purpose.
	second := ts.Start("two")
	t.Cleanup(func() { syscall.Kill(first, syscall.SIGKILL) })
	want := []int{first, second}
	slices.Sort(want)
	if got := ListenerPIDs(ts.Socket); !slices.Equal(got, want) {
		t.Errorf("ListenerPIDs(two servers) = %v, want %v", got, want)
	}
	if got := UnixListeners(nil)[ts.Socket]; !slices.Equal(got, want) {
		t.Errorf("UnixListeners(nil)[path] = %v, want %v", got, want)
	}
	if got := ListenerPIDs(ts.Socket + ".nothing"); got != nil {
		t.Errorf("ListenerPIDs(no such path) = %v, want nil", got)
	}
}

func TestZombieStatus(t *testing.T) {
	tests := []struct {
		name   string
		script string
		check  func(ws syscall.WaitStatus) bool
	}{
		{"exit 3", "exit 3", func(ws syscall.WaitStatus) bool { return ws.Exited() && ws.ExitStatus() == 3 }},
		{"exit 0", "exit 0", func(ws syscall.WaitStatus) bool { return ws.Exited() && ws.ExitStatus() == 0 }},
		{"SIGKILL", "kill -9 $$", func(ws syscall.WaitStatus) bool { return ws.Signaled() && ws.Signal() == syscall.SIGKILL }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tt.script)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			st, err := ReadProcStat(pid)
			if err != nil {
				t.Fatal(err)
			}
			// Not reaped until cmd.Wait: a zombie until then.
			tmuxtest.WaitFor(t, 5*time.Second, "child to become a zombie", func() bool {
				s, err := ReadProcStat(pid)
				return err == nil && s.State == 'Z'
			})
			ws, ok := ZombieStatus(pid, st.StartTime)
			if !ok || !tt.check(ws) {
				t.Errorf("ZombieStatus = %#x, %v; want %s", uint32(ws), ok, tt.name)
			}
			if _, ok := ZombieStatus(pid, st.StartTime+1); ok {
				t.Error("ZombieStatus with another start time (PID reused): ok, want not ok")
			}
			cmd.Wait() //nolint:errcheck // reaps it
			if _, ok := ZombieStatus(pid, 0); ok {
				t.Error("ZombieStatus after reaping: ok, want not ok")
			}
		})
	}
	if _, ok := ZombieStatus(os.Getpid(), 0); ok {
		t.Error("ZombieStatus(running process): ok, want not ok")
	}
}
