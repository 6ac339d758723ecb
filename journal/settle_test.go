package journal

import (
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestSettledAfter: a snapshot is settled only when every live pane had
// started in the read before it, so a path read between tmux's fork and
// the pane's exec (the server's own directory) is never the last word.
func TestSettledAfter(t *testing.T) {
	snap := func(panes ...Pane) *Snapshot {
		return &Snapshot{Sessions: []Session{{Windows: []Window{{Panes: panes}}}}}
	}
	started := Pane{ID: "%1", Path: "/home/u/project"}
	forking := Pane{ID: "%2", Path: "/srv/tmux-cwd", forking: true}
	noPath := Pane{ID: "%3"}
	dead := Pane{ID: "%4", Dead: true}
	tests := []struct {
		name        string
		before      map[tmux.PaneID]bool
		snap        *Snapshot
		wantSettled bool
		wantStarted []tmux.PaneID
	}{
		{"first read of a server", nil, snap(started), false, []tmux.PaneID{"%1"}},
		{"started in the read before", map[tmux.PaneID]bool{"%1": true}, snap(started), true, []tmux.PaneID{"%1"}},
		{"a pane still running the server's binary", map[tmux.PaneID]bool{"%1": true}, snap(started, forking), false, []tmux.PaneID{"%1"}},
		{"started before, forking flag now (a tmux client exec'd)", map[tmux.PaneID]bool{"%1": true, "%2": true}, snap(started, forking), true, []tmux.PaneID{"%1"}},
		{"no path yet", map[tmux.PaneID]bool{"%1": true}, snap(started, noPath), false, []tmux.PaneID{"%1"}},
		{"dead panes never hold it back", map[tmux.PaneID]bool{"%1": true}, snap(started, dead), true, []tmux.PaneID{"%1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.snap.settledAfter(tt.before); got != tt.wantSettled {
				t.Errorf("settledAfter = %v, want %v", got, tt.wantSettled)
			}
			got := tt.snap.started()
			if len(got) != len(tt.wantStarted) {
				t.Errorf("started = %v, want %v", got, tt.wantStarted)
			}
			for _, id := range tt.wantStarted {
				if !got[id] {
					t.Errorf("started = %v, want %v", got, tt.wantStarted)
				}
			}
		})
	}
}

// TestRunsBinary: a process is seen running a binary by its /proc exe
// link, which is how a pane forked by tmux and not yet exec'd is told
// from one running its command.
func TestRunsBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	self, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	tests := []struct {
		name string
		pid  int
		bin  string
		want bool
	}{
		{"itself", os.Getpid(), self, true},
		{"another program", cmd.Process.Pid, self, false},
		{"binary not known", os.Getpid(), "", false},
		{"no process", 0, self, false},
	}
	for _, tt := range tests {
		if got := runsBinary(tt.pid, tt.bin); got != tt.want {
			t.Errorf("%s: runsBinary(%d, %q) = %v, want %v", tt.name, tt.pid, tt.bin, got, tt.want)
		}
	}
}
