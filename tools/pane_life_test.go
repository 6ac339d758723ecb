package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestRespawnPane(t *testing.T) {
	e := newEnv(t, Mutating)
	pane := e.split(e.firstPane(), "sleep 3600")
	before := e.tmux("display-message", "-p", "-t", pane, "#{pane_pid}")
	var p PaneInfo
	e.ok("respawn_pane", map[string]any{"pane_id": pane, "shell": "sleep 7200"}, &p)
	if p.PaneID != pane || p.PanePID == before {
		t.Errorf("respawn_pane = %s pid %s, want %s with a new pid (was %s)", p.PaneID, p.PanePID, pane, before)
	}
	e.fails("respawn_pane", map[string]any{"pane_id": pane, "kill": false}, "still active")

	// kill=false respawns a dead pane; environment reaches the new process.
	e.tmux("set-option", "-p", "-t", pane, "remain-on-exit", "on")
	e.tmux("respawn-pane", "-k", "-t", pane, "true")
	tmuxtest.WaitFor(t, 5*time.Second, "the pane to die", func() bool {
		out, _ := e.tm.Tmux("display-message", "-p", "-t", pane, "#{pane_dead}")
		return out == "1"
	})
	e.ok("respawn_pane", map[string]any{"pane_id": pane, "kill": false,
		"shell":       `sh -c 'echo "got $TMCP_A $TMCP_B"; exec sleep 600'`,
		"environment": map[string]any{"TMCP_A": "bar", "TMCP_B": "qux"}}, &p)
	tmuxtest.WaitFor(t, 5*time.Second, "the environment in the pane", func() bool {
		out, _ := e.tm.Tmux("capture-pane", "-p", "-t", pane)
		return strings.Contains(out, "got bar qux")
	})

	e.fails("respawn_pane", nil, "argument pane_id: required")
	e.fails("respawn_pane", map[string]any{"pane_id": "%999"}, "Pane not found")
	self := newEnvOn(t, e, Mutating, Caller{SocketPath: e.tm.Socket, Pane: paneID(pane)})
	self.fails("respawn_pane", map[string]any{"pane_id": pane}, refuseRespawn, "[refused]")
	if got := e.tmux("display-message", "-p", "-t", pane, "#{pane_pid}"); got != p.PanePID {
		t.Errorf("refused respawn changed the pane's pid from %s to %s", p.PanePID, got)
	}
}

func TestKillPane(t *testing.T) {
	e := newEnv(t, Destructive)
	pane := e.split(e.firstPane())
	self := newEnvOn(t, e, Destructive, Caller{SocketPath: e.tm.Socket, Pane: paneID(pane)})
	self.fails("kill_pane", map[string]any{"pane_id": pane}, refusePane, "[refused]")
	var m messageResult
	e.ok("kill_pane", map[string]any{"pane_id": pane}, &m)
	if m.Result != "Pane killed: "+pane {
		t.Errorf("kill_pane = %q, want Pane killed: %s", m.Result, pane)
	}
	if out := e.tmux("list-panes", "-a", "-F", "#{pane_id}"); strings.Contains(out, pane) {
		t.Errorf("panes after kill_pane = %q, want no %s", out, pane)
	}
	e.fails("kill_pane", map[string]any{"pane_id": pane}, "Pane not found")
	e.fails("kill_pane", nil, "argument pane_id: required")
}
