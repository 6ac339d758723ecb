package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestSynchronizedOwnPane is issue 29's synchronize-panes bypass of the
// own-pane guard, on the built binary at the default tier: split_window in
// the agent's window, set_option synchronize-panes on for that window,
// then type into the new pane. The option is refused, and when the person
// has it on already, send_keys, run_command and send_keys_batch to the
// sibling are refused as typing into the agent's own pane is: nothing
// reaches either pane.
func TestSynchronizedOwnPane(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	own := tm.MustTmux("display-message", "-p", "-t", "=main:", "#{pane_id}")
	win := tm.MustTmux("display-message", "-p", "-t", own, "#{window_id}")
	c, _, _ := startStdio(t, bin, binaryEnv(tm.Socket,
		"TMUX="+tm.Socket+","+strconv.Itoa(tm.PID())+",0", "TMUX_PANE="+own))
	t.Cleanup(func() { c.Close() })

	var split struct {
		ID string `json:"pane_id"`
	}
	if err := json.Unmarshal(structured(t, callTool(t, c, "split_window", map[string]any{"pane_id": own})), &split); err != nil {
		t.Fatal(err)
	}
	sib := split.ID
	if got := tm.MustTmux("display-message", "-p", "-t", sib, "#{window_id}"); sib == "" || got != win {
		t.Fatalf("split_window made %q in %s, want a pane in %s", sib, got, win)
	}
	toolFails(t, c, "set_option", map[string]any{"option": "synchronize-panes", "value": "on", "scope": "window", "target": win},
		"Refusing to turn synchronize-panes on where it reaches the pane running this MCP server", "[refused]")
	if got := tm.MustTmux("show-options", "-A", "-v", "-w", "-t", win, "synchronize-panes"); got != "off" {
		t.Errorf("synchronize-panes of %s is %q after set_option was refused, want off", win, got)
	}

	// The person has it on: a "y" meant for the sibling would answer the
	// agent's prompt.
	tm.MustTmux("set-option", "-w", "-t", win, "synchronize-panes", "on")
	const refusal = "Refusing to type into a pane whose window has synchronize-panes on and holds the pane running this MCP server"
	toolFails(t, c, "send_keys", map[string]any{"pane_id": sib, "keys": "echo typed-by-send-keys"}, refusal, "[refused]")
	toolFails(t, c, "run_command", map[string]any{"pane_id": sib, "command": "echo typed-by-run-command"}, refusal)
	var batch struct {
		Failed int `json:"failed"`
	}
	res := callTool(t, c, "send_keys_batch", map[string]any{"operations": []any{
		map[string]any{"pane_id": sib, "keys": "echo typed-by-batch"}}})
	if err := json.Unmarshal(structured(t, res), &batch); err != nil {
		t.Fatal(err)
	}
	if batch.Failed != 1 {
		t.Errorf("send_keys_batch to the synchronized sibling: %d failed, want 1", batch.Failed)
	}
	// The refusals came before anything was sent: keys typed before them
	// would show in a capture now.
	for _, p := range []string{own, sib} {
		if s := tm.MustTmux("capture-pane", "-p", "-t", p); strings.Contains(s, "typed-by") {
			t.Errorf("pane %s shows refused keys:\n%s", p, s)
		}
	}
}
