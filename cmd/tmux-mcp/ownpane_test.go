package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// paneBinary runs the built binary inside a pane of tm's server
// (e2etest.PaneBinary).
func paneBinary(t *testing.T, tm *tmuxtest.Server, bin string, keepEnv bool) (string, func(h client.ElicitationHandler, legacy bool) *client.Client) {
	t.Helper()
	return e2etest.PaneBinary(t, tm, bin, keepEnv)
}

// answer answers every elicitation with one action and keeps the
// questions.
type answer struct {
	action mcp.ElicitationResponseAction
	mu     sync.Mutex
	asked  []string
}

func (a *answer) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req.Params.Message)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: a.action}}, nil
}

func (a *answer) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

// marked returns the id field and is_caller of every row of a listing
// ("null" when is_caller is null).
func marked(t *testing.T, c *client.Client, tool, idField string) map[string]string {
	t.Helper()
	res := callTool(t, c, tool, nil)
	var out struct {
		Result []map[string]any `json:"result"`
	}
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		raw, _ = json.Marshal(res.StructuredContent)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	got := map[string]string{}
	for _, r := range out.Result {
		got[fmt.Sprint(r[idField])] = fmt.Sprint(r["is_caller"])
	}
	return got
}

// checkMarks requires a listing to mark exactly want as the caller.
func checkMarks(t *testing.T, c *client.Client, tool, idField, want string) {
	t.Helper()
	got := marked(t, c, tool, idField)
	if len(got) < 2 {
		t.Errorf("%s = %v, want at least two rows", tool, got)
	}
	for id, b := range got {
		if w := strconv.FormatBool(id == want); b != w {
			t.Errorf("%s: %s is_caller = %s, want %s", tool, id, b, w)
		}
	}
}

// TestOwnPaneInsideTmux runs the binary inside a pane of a test server
// it supervises, found both with TMUX_PANE in its environment and without
// (by its process ancestry). Listings mark the pane, its window and its
// session; typing into, respawning and killing the pane, and killing its
// window, session and server, are refused; a client with elicitation is
// asked, and send_keys goes ahead when the user accepts and not when the
// user declines (the first client on protocol 2026-07-28, retrying with
// the answer; the second on 2025-11-25, sent elicitation/create).
func TestOwnPaneInsideTmux(t *testing.T) {
	bin := buildBinary(t)
	for _, keepEnv := range []bool{true, false} {
		t.Run(map[bool]string{true: "TMUX_PANE", false: "ancestry"}[keepEnv], func(t *testing.T) {
			tm := tmuxtest.New(t)
			tm.Start("main")
			tm.MustTmux("new-window", "-d", "-t", "=main:")
			pane, connect := paneBinary(t, tm, bin, keepEnv)
			win := tm.MustTmux("display-message", "-p", "-t", pane, "#{window_id}")
			sess := tm.MustTmux("display-message", "-p", "-t", pane, "#{session_id}")
			pid := tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_pid}")

			c := connect(nil, false)
			checkMarks(t, c, "list_panes", "pane_id", pane)
			checkMarks(t, c, "list_windows", "window_id", win)
			checkMarks(t, c, "list_sessions", "session_id", sess)
			snap := callTool(t, c, "snapshot_pane", map[string]any{"pane_id": pane})
			if b, _ := json.Marshal(snap.StructuredContent); !strings.Contains(string(b), `"is_caller":true`) {
				t.Errorf("snapshot_pane(%s) = %s, want is_caller true", pane, b)
			}
			for _, tt := range []struct {
				tool string
				args map[string]any
				want string
			}{
				{"send_keys", map[string]any{"pane_id": pane, "keys": "refused"}, "Refusing to type into the pane running this MCP server"},
				{"respawn_pane", map[string]any{"pane_id": pane}, "Refusing to respawn the pane running this MCP server."},
				{"kill_pane", map[string]any{"pane_id": pane}, "Refusing to kill the pane running this MCP server."},
				{"clear_pane", map[string]any{"pane_id": pane}, "Refusing to clear the pane running this MCP server"},
				{"enter_copy_mode", map[string]any{"pane_id": pane}, "Refusing to change copy mode of the pane running this MCP server"},
				{"kill_window", map[string]any{"window_id": win}, "Refusing to kill the window containing this MCP server's pane."},
				{"kill_session", map[string]any{"session_id": sess}, "Refusing to kill the session containing this MCP server's pane."},
				{"kill_server", nil, "Refusing to kill the tmux server while this MCP server is running inside it."},
			} {
				toolFails(t, c, tt.tool, tt.args, tt.want, "[refused]", "elicitation", "--allow-own-pane")
			}
			if got := tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_pid}"); got != pid {
				t.Errorf("pane %s's process is %s after the refusals, want %s", pane, got, pid)
			}
			if got := tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_in_mode}"); got != "0" {
				t.Errorf("pane %s in a mode (%s) after enter_copy_mode was refused", pane, got)
			}
			// Leaving copy mode is refused too when the person scrolled
			// the pane: it would end their scrolling.
			tm.MustTmux("copy-mode", "-t", pane)
			toolFails(t, c, "exit_copy_mode", map[string]any{"pane_id": pane},
				"Refusing to change copy mode of the pane running this MCP server", "[refused]")
			if got := tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_in_mode}"); got != "1" {
				t.Errorf("pane %s left copy mode (in mode %s) though exit_copy_mode was refused", pane, got)
			}
			tm.MustTmux("send-keys", "-X", "-t", pane, "cancel")

			c.Close() // the binary exits; the pane's script starts the next

			yes := &answer{action: mcp.ElicitationResponseActionAccept}
			cy := connect(yes, false)
			callTool(t, cy, "send_keys", map[string]any{"pane_id": pane, "keys": "typed-after-yes", "enter": false})
			tmuxtest.WaitFor(t, 10*time.Second, "the accepted keys on the pane", func() bool {
				return strings.Contains(tm.MustTmux("capture-pane", "-p", "-t", pane), "typed-after-yes")
			})
			if q := yes.questions(); len(q) != 1 || !strings.Contains(q[0], "would type into pane "+pane) {
				t.Errorf("questions = %q, want one about typing into %s", q, pane)
			}

			cy.Close()

			no := &answer{action: mcp.ElicitationResponseActionDecline}
			cn := connect(no, true)
			toolFails(t, cn, "send_keys", map[string]any{"pane_id": pane, "keys": "typed-after-no", "enter": false},
				"Refusing to type into the pane running this MCP server", "The user declined when asked.")
			if q := no.questions(); len(q) != 1 {
				t.Errorf("questions = %q, want one", q)
			}
			// The refusal came before anything was sent: a capture now
			// would show keys typed before it.
			if s := tm.MustTmux("capture-pane", "-p", "-t", pane); strings.Contains(s, "typed-after-no") || strings.Contains(s, "refused") {
				t.Errorf("pane %s shows refused keys:\n%s", pane, s)
			}
		})
	}

	// TMUX and TMUX_PANE alone, the binary not in the pane: the pane they
	// name is the caller's.
	t.Run("environment only", func(t *testing.T) {
		tm := tmuxtest.New(t)
		tm.Start("main")
		tm.MustTmux("new-session", "-d", "-s", "other")
		pane := tm.MustTmux("display-message", "-p", "-t", "=main:", "#{pane_id}")
		c, _, _ := startStdio(t, bin, binaryEnv(tm.Socket, "TMUX_MCP_SAFETY=destructive",
			"TMUX="+tm.Socket+","+strconv.Itoa(tm.PID())+",0", "TMUX_PANE="+pane))
		t.Cleanup(func() { c.Close() })
		checkMarks(t, c, "list_panes", "pane_id", pane)
		checkMarks(t, c, "list_sessions", "session_name", "main")
		toolFails(t, c, "kill_session", map[string]any{"session_name": "main"}, "Refusing to kill the session containing this MCP server's pane.")
		callTool(t, c, "kill_session", map[string]any{"session_name": "other"})
	})
}
