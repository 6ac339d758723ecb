package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestListServersAgentTeam: an agent team's private server
// (claude-swarm-<lead PID>) is listed with its owner and the agents in its
// panes, and listing it neither adopts it nor adds a session to it.
func TestListServersAgentTeam(t *testing.T) {
	e := newEnv(t, Readonly)
	claude := agentstub.Lookalike(t, "claude")
	lead := exec.Command(claude, "600")
	if err := lead.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lead.Process.Kill(); lead.Wait() }) //nolint:errcheck // our child
	team := tmuxtest.New(t)
	team.Socket = filepath.Join(team.Dir, fmt.Sprintf("claude-swarm-%d", lead.Process.Pid))
	team.MustTmux("new-session", "-d", "-s", "swarm", "exec "+claude+" 600")
	team.MustTmux("split-window", "-t", "=swarm:", claude+" 600") // under a shell: found below the pane's process
	team.MustTmux("split-window", "-t", "=swarm:", "exec sleep 600")
	tmuxtest.WaitFor(t, 10*time.Second, "the panes' programs to start", func() bool {
		out, _ := team.Tmux("list-panes", "-a", "-F", "#{pane_pid}")
		var started []string
		for _, pid := range strings.Fields(out) {
			n, _ := strconv.Atoi(pid)
			below, _ := jobs.PaneTree(context.Background(), n)
			for _, p := range append([]int{n}, below...) {
				argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
				if prog, _, _ := strings.Cut(string(argv), "\x00"); prog == claude || prog == "sleep" {
					started = append(started, filepath.Base(prog))
				}
			}
		}
		argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", lead.Process.Pid))
		return strings.Join(started, " ") == "claude claude sleep" && strings.HasPrefix(string(argv), claude+"\x00")
	})

	var got serversResult
	e.ok("list_servers", map[string]any{"extra_socket_paths": []any{team.Socket}}, &got)
	if len(got.Result) != 1 {
		t.Fatalf("list_servers = %+v, want the team's server", got.Result)
	}
	s := got.Result[0]
	if want := fmt.Sprintf("claude (PID %d)", lead.Process.Pid); s.Owner == nil || *s.Owner != want {
		t.Errorf("owner = %v, want %q", s.Owner, want)
	}
	if s.Agents["claude"] != 2 || len(s.Agents) != 1 {
		t.Errorf("agents = %v, want claude: 2", s.Agents)
	}
	if got := team.MustTmux("list-sessions", "-F", "#{session_name}"); got != "swarm" {
		t.Errorf("sessions on the team's server after list_servers = %q, want only its own", got)
	}

	// A server that is no team's has no owner.
	var own serversResult
	e.ok("list_servers", map[string]any{"extra_socket_paths": []any{e.tm.Socket}}, &own)
	if len(own.Result) != 1 || own.Result[0].Owner != nil || own.Result[0].Agents != nil {
		t.Errorf("list_servers of the test's own server = %+v, want no owner and no agents", own.Result)
	}
}
