package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/guard"
)

// TestSynchronizedOwnWindow: with synchronize-panes on in the window that
// holds tmux-mcp's own pane, a sibling pane counts as the own pane for
// every tool that types, and set_option refuses to turn the option on
// where it reaches the own pane; both give way where typing into the own
// pane does (the destructive tier and --allow-self-input), and then the
// keys do land in the own pane too, which is what the guard prevents.
func TestSynchronizedOwnWindow(t *testing.T) {
	e := newEnv(t, Destructive)
	own, ownFile := e.sink()
	win := e.tmux("display-message", "-p", "-t", own, "#{window_id}")
	sibFile := filepath.Join(t.TempDir(), "sibling")
	sib := e.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", own, "echo ready; stty -echo; exec cat > "+sibFile)
	e.waitScreen(sib, "sibling ready", func(s string) bool { return strings.Contains(s, "ready") })
	other, otherFile := e.sink() // another window
	otherWin := e.tmux("display-message", "-p", "-t", other, "#{window_id}")

	self := selfEnv(t, e, own, Mutating, false)
	// Turning the option on where it reaches the own pane is refused.
	for _, args := range []map[string]any{
		{"scope": "window", "target": win},
		{"scope": "pane", "target": sib},
		{"scope": "pane", "target": own},
		{"scope": "window", "global_": true},
		{"scope": "window", "target": win, "option": "synchron"},
	} {
		args["value"] = "on"
		if args["option"] == nil {
			args["option"] = "synchronize-panes"
		}
		self.fails("set_option", args, guard.RefuseSyncOption, "[refused]")
	}
	if got := e.tmux("show-options", "-A", "-v", "-p", "-t", sib, "synchronize-panes"); got != "off" {
		t.Fatalf("synchronize-panes of %s is %q after the refusals, want off", sib, got)
	}
	// Off, and on for a window without the own pane, are fine.
	self.ok("set_option", map[string]any{"option": "synchronize-panes", "value": "off", "scope": "window", "target": win}, nil)
	self.ok("set_option", map[string]any{"option": "synchronize-panes", "value": "on", "scope": "window", "target": otherWin}, nil)

	// The person turned it on in the agent's window.
	e.tmux("set-option", "-w", "-t", win, "synchronize-panes", "on")
	var buf map[string]string
	self.ok("load_buffer", map[string]any{"content": "pasted"}, &buf)
	self.fails("send_keys", map[string]any{"pane_id": sib, "keys": "y"}, guard.RefuseSyncInput, "[refused]", "--allow-self-input")
	self.fails("paste_text", map[string]any{"pane_id": sib, "text": "y"}, guard.RefuseSyncInput)
	self.fails("run_command", map[string]any{"pane_id": sib, "command": "y", "timeout": 1}, guard.RefuseSyncInput)
	self.fails("paste_buffer", map[string]any{"pane_id": sib, "buffer_name": buf["buffer_name"]}, guard.RefuseSyncInput)
	var batch struct {
		Succeeded int `json:"succeeded"`
		Failed    int `json:"failed"`
	}
	self.ok("send_keys_batch", map[string]any{"on_error": "continue", "operations": []any{
		map[string]any{"pane_id": sib, "keys": "y"}, map[string]any{"pane_id": other, "keys": "ok"}}}, &batch)
	if batch.Succeeded != 1 || batch.Failed != 1 {
		t.Errorf("send_keys_batch = %+v, want the synchronized sibling refused and the other pane typed into", batch)
	}
	waitFile(t, otherFile, "ok\n")
	// A pane of the window whose own option is off gets no copies, and
	// copies none: typing into the sibling is fine again.
	e.tmux("set-option", "-p", "-t", own, "synchronize-panes", "off")
	self.ok("send_keys", map[string]any{"pane_id": sib, "keys": "alone"}, nil)
	waitFile(t, sibFile, "alone\n")
	e.tmux("set-option", "-p", "-u", "-t", own, "synchronize-panes")
	if b, _ := os.ReadFile(ownFile); len(b) != 0 {
		t.Errorf("the own pane received %q", b)
	}

	// Allowed as typing into the own pane is: the keys reach both.
	allowed := selfEnv(t, e, own, Destructive, true)
	allowed.ok("send_keys", map[string]any{"pane_id": sib, "keys": "both"}, nil)
	waitFile(t, ownFile, "both\n")
	waitFile(t, sibFile, "alone\nboth\n")
	allowed.ok("set_option", map[string]any{"option": "synchronize-panes", "value": "on", "scope": "pane", "target": sib}, nil)
}
