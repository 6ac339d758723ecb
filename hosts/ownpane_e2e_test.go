package hosts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/hosts/sshdtest"
	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestHostsOwnPaneThroughHop: a --host that is this same machine, whose
// tmux-mcp (started by sshd: no TMUX, not in the agent's process tree)
// supervises the tmux server the agent's own pane is on. Through the hop,
// typing into the agent's pane is refused as it is without the hop, and
// so is typing into a pane synchronized with it, turning synchronize-panes
// on for its window, and killing or respawning it; another pane takes
// keys; listings through the hop mark the agent's pane. With the local
// tmux-mcp inside the pane (found by its process ancestry, no TMUX) and
// with TMUX and TMUX_PANE alone (the binary outside the pane). Issue 42:
// send_keys {host: self} typed into the agent's pane.
func TestHostsOwnPaneThroughHop(t *testing.T) {
	bin := e2etest.Binary(t)
	for _, mode := range []string{"ancestry", "environment only"} {
		t.Run(mode, func(t *testing.T) {
			tm := tmuxtest.New(t)
			tm.Start("main")
			h := startSimHostOn(t, "self", filepath.Dir(bin)+":/usr/local/bin:/usr/bin:/bin", tm.Socket)
			// One word for the pane's script: ssh with the test's config.
			ssh := filepath.Join(t.TempDir(), "ssh")
			if err := os.WriteFile(ssh, []byte("#!/bin/sh\nexec "+strings.Join(sshdtest.ClientConfig(t, h.sshd), " ")+" \"$@\"\n"), 0o700); err != nil {
				t.Fatal(err)
			}
			hostEnv := []string{"TMUX_MCP_HOSTS=" + h.sshd.URL("self"), "TMUX_MCP_SSH=" + ssh}
			var c *client.Client
			var agent string
			switch mode {
			case "ancestry":
				pane, connect := e2etest.PaneBinary(t, tm, bin, false, hostEnv...)
				agent, c = pane, connect(nil, true)
			default:
				agent = tm.MustTmux("display-message", "-p", "-t", "=main:", "#{pane_id}")
				var stderr *e2etest.Buffer
				c, _, stderr = e2etest.StartStdio(t, bin, e2etest.Env(tm.Socket, append(hostEnv, "TMUX_MCP_SAFETY=destructive",
					"TMUX="+tm.Socket+","+strconv.Itoa(tm.PID())+",0", "TMUX_PANE="+agent)...))
				t.Cleanup(func() {
					c.Close()
					if t.Failed() {
						t.Logf("tmux-mcp stderr:\n%s", stderr)
					}
				})
			}
			awaitHostUp(t, c, "self")
			other := tm.MustTmux("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "other", "sh")
			win := tm.MustTmux("display-message", "-p", "-t", agent, "#{window_id}")

			// Without the hop the guard holds, as it did before.
			e2etest.ToolFails(t, c, "send_keys", map[string]any{"pane_id": agent, "keys": "echo local-typed"},
				"Refusing to type into the pane running this MCP server")
			// Through it, the same.
			for _, tt := range []struct {
				tool string
				args map[string]any
				want string
			}{
				{"send_keys", map[string]any{"pane_id": agent, "keys": "echo hop-typed", "enter": true}, "Refusing to type into the pane running this MCP server"},
				{"paste_text", map[string]any{"pane_id": agent, "text": "echo hop-pasted"}, "Refusing to type into the pane running this MCP server"},
				{"run_command", map[string]any{"pane_id": agent, "command": "echo hop-ran"}, "Refusing to type into the pane running this MCP server"},
				{"respawn_pane", map[string]any{"pane_id": agent}, "Refusing to respawn the pane running this MCP server."},
				{"kill_pane", map[string]any{"pane_id": agent}, "Refusing to kill the pane running this MCP server."},
				{"kill_window", map[string]any{"window_id": win}, "Refusing to kill the window containing this MCP server's pane."},
				{"set_option", map[string]any{"option": "synchronize-panes", "value": "on", "scope": "window", "target": win},
					"Refusing to turn synchronize-panes on where it reaches the pane running this MCP server"},
			} {
				tt.args["host"] = "self"
				e2etest.ToolFails(t, c, tt.tool, tt.args, tt.want)
			}
			if s := tm.MustTmux("capture-pane", "-p", "-t", agent); strings.Contains(s, "hop-") || strings.Contains(s, "local-typed") {
				t.Errorf("the agent's pane shows refused keys:\n%s", s)
			}
			// Another pane takes keys through the hop.
			e2etest.CallTool(t, c, "send_keys", map[string]any{"host": "self", "pane_id": other, "keys": "echo other-$((20+22))", "enter": true})
			tmuxtest.WaitFor(t, 10*time.Second, "the keys in the other pane", func() bool {
				return strings.Contains(tm.MustTmux("capture-pane", "-p", "-t", other), "other-42")
			})
			// The hop's listing marks the agent's pane.
			marks := hopMarks(t, c, "self")
			if marks[agent] != "true" || marks[other] != "false" {
				t.Errorf("list_panes through the hop: is_caller %v, want %s true and %s false", marks, agent, other)
			}

			// A pane synchronized with the agent's: the keys would reach it.
			sibling := tm.MustTmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", agent, "sh")
			tm.MustTmux("set-option", "-w", "-t", win, "synchronize-panes", "on")
			e2etest.ToolFails(t, c, "send_keys", map[string]any{"host": "self", "pane_id": sibling, "keys": "echo sync-typed", "enter": true},
				"Refusing to type into a pane whose window has synchronize-panes on")
			for _, p := range []string{agent, sibling} {
				if s := tm.MustTmux("capture-pane", "-p", "-t", p); strings.Contains(s, "sync-typed") {
					t.Errorf("pane %s shows the refused synchronized keys:\n%s", p, s)
				}
			}
			tm.MustTmux("set-option", "-w", "-t", win, "synchronize-panes", "off")
			e2etest.CallTool(t, c, "send_keys", map[string]any{"host": "self", "pane_id": sibling, "keys": "echo sibling-$((6*7))", "enter": true})
			tmuxtest.WaitFor(t, 10*time.Second, "the keys in the sibling once not synchronized", func() bool {
				return strings.Contains(tm.MustTmux("capture-pane", "-p", "-t", sibling), "sibling-42")
			})
		})
	}
}

// awaitHostUp waits until server_health shows host up.
func awaitHostUp(t *testing.T, c *client.Client, host string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var h struct {
			Hosts []hostHealth `json:"hosts"`
		}
		e2etest.Decode(t, e2etest.CallTool(t, c, "server_health", nil), &h)
		for _, x := range h.Hosts {
			if x.Name == host && x.State == "up" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("host %s not up after 30s: %+v", host, h.Hosts)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hopMarks returns each pane's is_caller in list_panes on host.
func hopMarks(t *testing.T, c *client.Client, host string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "list_panes"
	req.Params.Arguments = map[string]any{"host": host}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("list_panes on %s: %v %v", host, res, err)
	}
	var out struct {
		Result []map[string]any `json:"result"`
	}
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		raw, _ = json.Marshal(res.StructuredContent)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range out.Result {
		got[fmt.Sprint(r["pane_id"])] = fmt.Sprint(r["is_caller"])
	}
	return got
}
