package tools

import (
	"os"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
)

// selfEnv is an MCP server over e's supervisor whose process runs in pane
// (as if started inside tmux), at tier, with AllowSelfInput as given.
func selfEnv(t *testing.T, e *env, pane string, tier Tier, allow bool) *env {
	t.Helper()
	d := Deps{Sup: e.sup, Tier: tier, Caller: Caller{SocketPath: e.tm.Socket, Pane: paneID(pane)}, AllowSelfInput: allow}
	srv, err := New(d, Options{Settings: mcpserver.Settings{ValidateOutput: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &env{t: t, tm: e.tm, sup: e.sup, srv: srv, c: startClient(t, srv), d: d}
}

// TestNoTypingIntoOwnPane: the tools that type refuse the pane tmux-mcp
// runs in, so that an agent cannot answer its own approval prompts,
// unless the destructive tier and --allow-self-input both allow it.
func TestNoTypingIntoOwnPane(t *testing.T) {
	e := newEnv(t, Destructive)
	pane, file := e.sink()
	other, otherFile := e.sink()
	for _, tt := range []struct {
		tier  Tier
		allow bool
	}{{Mutating, false}, {Mutating, true}, {Destructive, false}} {
		self := selfEnv(t, e, pane, tt.tier, tt.allow)
		var buf map[string]string
		self.ok("load_buffer", map[string]any{"content": "pasted"}, &buf)
		self.fails("send_keys", map[string]any{"pane_id": pane, "keys": "y"}, guard.RefuseSelfInput, "[refused]", "--allow-self-input")
		self.fails("paste_text", map[string]any{"pane_id": pane, "text": "y"}, guard.RefuseSelfInput)
		self.fails("run_command", map[string]any{"pane_id": pane, "command": "y", "timeout": 1}, guard.RefuseSelfInput)
		self.fails("paste_buffer", map[string]any{"pane_id": pane, "buffer_name": buf["buffer_name"]}, guard.RefuseSelfInput)
		var batch struct {
			Succeeded int `json:"succeeded"`
			Failed    int `json:"failed"`
		}
		self.ok("send_keys_batch", map[string]any{"on_error": "continue", "operations": []any{
			map[string]any{"pane_id": pane, "keys": "y"}, map[string]any{"pane_id": other, "keys": "ok"}}}, &batch)
		if batch.Succeeded != 1 || batch.Failed != 1 {
			t.Errorf("tier %s allow=%v: send_keys_batch = %+v, want the caller's pane refused and the other typed into", tt.tier, tt.allow, batch)
		}
		self.ok("call_mutating_tools_batch", map[string]any{"operations": []any{
			map[string]any{"tool": "send_keys", "arguments": map[string]any{"pane_id": pane, "keys": "y"}}}}, nil)
	}
	waitFile(t, otherFile, "ok\nok\nok\n")
	if b, _ := os.ReadFile(file); len(b) != 0 {
		t.Errorf("the caller's pane received %q", b)
	}

	allowed := selfEnv(t, e, pane, Destructive, true)
	allowed.ok("send_keys", map[string]any{"pane_id": pane, "keys": "typed"}, nil)
	waitFile(t, file, "typed\n")
}
