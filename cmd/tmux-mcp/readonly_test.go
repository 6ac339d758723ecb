package main

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// startReadonly starts the binary at the readonly tier with tm as its
// default server and tm's directory as TMUX_TMPDIR, so that socket_name
// names sockets under it.
func startReadonly(t *testing.T, tm *tmuxtest.Server) *client.Client {
	t.Helper()
	ro, _, _ := startStdio(t, buildBinary(t), binaryEnv(tm.Socket, "TMUX_MCP_SAFETY=readonly", "TMUX_TMPDIR="+tm.Dir))
	t.Cleanup(func() { ro.Close() })
	return ro
}

// healthState is server_health's state for the default server.
func healthState(t *testing.T, c *client.Client) string {
	t.Helper()
	var h struct {
		State string `json:"state"`
	}
	structuredOf(t, callTool(t, c, "server_health", nil), &h)
	return h.State
}

// TestReadonlyLeavesServersAlone replays issue 17's item 5 on the built
// binary: at the readonly tier no call starts a server, adds tmux-mcp's
// hidden session or a client to a server it reads, or brings a crashed
// server back (started, restored).
func TestReadonlyLeavesServersAlone(t *testing.T) {
	t.Run("no server", func(t *testing.T) {
		tm := tmuxtest.New(t)
		dir := tmux.SocketDirFor(tm.Dir)
		var others []*tmuxtest.Server
		for i := range 3 {
			// Each socket a regression would start a server on, so that
			// cleanup ends it.
			o := tmuxtest.New(t)
			o.Socket = filepath.Join(dir, "ro"+strconv.Itoa(i))
			others = append(others, o)
		}
		ro := startReadonly(t, tm)
		toolFails(t, ro, "list_sessions", nil)
		for i := range others {
			toolFails(t, ro, "list_sessions", map[string]any{"socket_name": "ro" + strconv.Itoa(i)})
		}
		if pid := tm.PID(); pid != 0 {
			t.Errorf("the default server was started (PID %d)", pid)
		}
		for _, o := range others {
			if pid := o.PID(); pid != 0 {
				t.Errorf("a server was started on %s (PID %d)", o.Socket, pid)
			}
		}
	})

	t.Run("another server", func(t *testing.T) {
		tm := tmuxtest.New(t)
		tm.Start("main")
		ro := startReadonly(t, tm)
		callTool(t, ro, "list_sessions", nil)
		callTool(t, ro, "list_panes", map[string]any{"session_name": "main"})
		callTool(t, ro, "capture_pane", map[string]any{"session_name": "main"})
		if got := tm.MustTmux("list-sessions", "-F", "#{session_name}"); got != "main" {
			t.Errorf("sessions = %q, want only main (no %s)", got, tmux.HiddenSession)
		}
		if got := tm.MustTmux("list-clients", "-F", "#{client_name}"); got != "" {
			t.Errorf("clients = %q, want none", got)
		}
	})

	t.Run("crashed before", func(t *testing.T) {
		tm := tmuxtest.New(t)
		pid := tm.Start("main")
		crash(t, tm, pid)
		ro := startReadonly(t, tm)
		toolFails(t, ro, "list_sessions", nil)
		if pid := tm.PID(); pid != 0 {
			t.Errorf("the crashed server was started again (PID %d)", pid)
		}
	})

	t.Run("crashed while read", func(t *testing.T) {
		tm := tmuxtest.New(t)
		pid := tm.Start("main")
		ro := startReadonly(t, tm)
		callTool(t, ro, "list_sessions", nil)
		crash(t, tm, pid)
		tmuxtest.WaitFor(t, 10*time.Second, "the death noticed and left alone", func() bool {
			return healthState(t, ro) == "down"
		})
		toolFails(t, ro, "list_sessions", nil)
		if pid := tm.PID(); pid != 0 {
			t.Errorf("the crashed server was started again (PID %d)", pid)
		}
		if _, err := os.Stat(tm.Socket); err != nil {
			t.Errorf("the dead server's socket: %v, want it left in place", err)
		}
	})
}

// crash kills tm's server with SIGKILL, which leaves its socket behind,
// and waits for the process to be gone.
func crash(t *testing.T, tm *tmuxtest.Server, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the server gone", func() bool {
		return !tmuxtest.Alive(pid)
	})
}
