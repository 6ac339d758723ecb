package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
)

func TestTeamLead(t *testing.T) {
	tests := []struct {
		socket string
		name   Name
		pid    int
		ok     bool
	}{
		{"claude-swarm-4242", "claude", 4242, true},
		{"claude-swarm-1", "claude", 1, true},
		{"claude-swarm-", "", 0, false},
		{"claude-swarm-0", "", 0, false},
		{"claude-swarm--3", "", 0, false},
		{"claude-swarm-042", "", 0, false}, // not how a PID is printed
		{"claude-swarm-12a", "", 0, false},
		{"default", "", 0, false},
		{"my-claude-swarm-12", "", 0, false},
	}
	for _, tt := range tests {
		name, pid, ok := TeamLead(tt.socket)
		if name != tt.name || pid != tt.pid || ok != tt.ok {
			t.Errorf("TeamLead(%q) = %q, %d, %v; want %q, %d, %v", tt.socket, name, pid, ok, tt.name, tt.pid, tt.ok)
		}
	}
}

// TestTeamOwner runs a process named claude (a copy of sleep) as the lead.
func TestTeamOwner(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("waits for the lead's exec in /proc")
	}
	bin := agentstub.Lookalike(t, "claude")
	lead := exec.Command(bin, "60")
	if err := lead.Start(); err != nil {
		t.Fatal(err)
	}
	pid := lead.Process.Pid
	for deadline := time.Now().Add(10 * time.Second); ; { // until it has exec'd
		if argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.HasPrefix(string(argv), bin+"\x00") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lead did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	socket := fmt.Sprintf("claude-swarm-%d", pid)
	if got, want := TeamOwner(context.Background(), socket), fmt.Sprintf("claude (PID %d)", pid); got != want {
		t.Errorf("TeamOwner while the lead runs = %q, want %q", got, want)
	}
	lead.Process.Kill() //nolint:errcheck // our child
	lead.Wait()         //nolint:errcheck // killed
	if got, want := TeamOwner(context.Background(), socket), fmt.Sprintf("claude (PID %d, no longer running)", pid); got != want {
		t.Errorf("TeamOwner after the lead ended = %q, want %q", got, want)
	}
	if got := TeamOwner(context.Background(), fmt.Sprintf("claude-swarm-%d", os.Getpid())); got == fmt.Sprintf("claude (PID %d)", os.Getpid()) {
		t.Errorf("TeamOwner of a PID that runs no claude = %q", got)
	}
	if got := TeamOwner(context.Background(), "default"); got != "" {
		t.Errorf("TeamOwner(default) = %q, want none", got)
	}
}
