package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestTeamServerIsItsOwners: an agent team's private server
// (claude-swarm-<PID>) is supervised while it runs, but tmux-mcp never
// starts one, and when it dies it is neither restarted nor restored.
func TestTeamServerIsItsOwners(t *testing.T) {
	ts := tmuxtest.New(t)
	ts.Socket = filepath.Join(ts.Dir, fmt.Sprintf("claude-swarm-%d", os.Getpid()))
	sup := newSup(t, ts, Config{})
	if _, err := sup.Default(testCtx(t)); err == nil || !strings.Contains(err.Error(), "agent team's private server") {
		t.Fatalf("Default with no team server running = %v; want a refusal to start it", err)
	}
	if _, err := os.Stat(ts.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a socket appeared at %s (%v): tmux-mcp started the team's server", ts.Socket, err)
	}

	ts.MustTmux("new-session", "-d", "-s", "team") // its owner starts it
	rec := record(sup)
	srv := mustServer(t, sup)
	mustDo(t, srv, "display-message", "-p", "#{pid}")
	pid := srv.Health().PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	died := rec.wait(t, 10*time.Second, "server_died", isType(EventServerDied))
	if got := rec.count(isType(EventRestarting)); got != 0 {
		t.Errorf("%d restarting events after the team server died; want none (events: %v)", got, rec.types())
	}
	_, err := srv.do(testCtx(t), "list-sessions")
	if err == nil || !strings.Contains(err.Error(), "agent team") {
		t.Errorf("a call after the team server died = %v; want it refused, naming the team (death: %s)", err, died.Detail)
	}
	t.Logf("after the death: %v", err)
	if proc.ProbeSocket(testCtx(t), ts.Socket, 200*time.Millisecond) == nil {
		t.Errorf("something answers on %s after the team server died: tmux-mcp started one", ts.Socket)
	}
	if h := srv.Health(); h.State == StateUp {
		t.Errorf("health = %+v; want the team server down", h)
	}
}

// TestTeamServerLeftToEnd: tmux-mcp makes no session of its own on a
// team's server, so when its owner ends the last of its sessions the
// server exits as it would without tmux-mcp (exit-empty), instead of
// living on for tmux-mcp's hidden session.
func TestTeamServerLeftToEnd(t *testing.T) {
	ts := tmuxtest.New(t)
	ts.Socket = filepath.Join(ts.Dir, fmt.Sprintf("claude-swarm-%d", os.Getpid()))
	ts.MustTmux("new-session", "-d", "-s", "team")
	sup := newSup(t, ts, Config{})
	srv := mustServer(t, sup)
	mustDo(t, srv, "display-message", "-p", "#{pid}")
	h := srv.Health()
	if got := ts.MustTmux("list-sessions", "-F", "#{session_name}"); got != "team" {
		t.Errorf("sessions on the team server = %q; want only the owner's, team", got)
	}
	ts.MustTmux("kill-session", "-t", "=team")
	tmuxtest.WaitFor(t, 10*time.Second, "the team server to exit with its last session", func() bool {
		return !proc.PIDAlive(h.PID, 0)
	})
}
