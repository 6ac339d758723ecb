package tools

import (
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestCopyMode(t *testing.T) {
	e := newEnv(t, Mutating)
	pane := e.split(e.firstPane(), "sh -c 'seq 1 200; exec sleep 600'")
	tmuxtest.WaitFor(t, 5*time.Second, "history in the pane", func() bool {
		out, _ := e.tm.Tmux("display-message", "-p", "-t", pane, "#{history_size}")
		return out != "" && out != "0"
	})
	var p PaneInfo
	e.ok("enter_copy_mode", map[string]any{"pane_id": pane, "scroll_up": 5}, &p)
	if p.PaneID != pane {
		t.Errorf("enter_copy_mode = %s, want %s", p.PaneID, pane)
	}
	if got := e.tmux("display-message", "-p", "-t", pane, "#{pane_in_mode} #{scroll_position}"); got != "1 5" {
		t.Errorf("in mode, scroll position = %q, want \"1 5\"", got)
	}
	e.ok("exit_copy_mode", map[string]any{"pane_id": pane}, &p)
	if got := e.tmux("display-message", "-p", "-t", pane, "#{pane_in_mode}"); got != "0" {
		t.Errorf("pane_in_mode after exit_copy_mode = %s, want 0", got)
	}
	// Leaving a mode the pane is not in changes nothing and succeeds.
	e.ok("exit_copy_mode", map[string]any{"pane_id": pane}, nil)
	e.fails("enter_copy_mode", map[string]any{"scroll_up": -1}, "argument scroll_up: out of range")
	e.fails("exit_copy_mode", map[string]any{"pane_id": "%999"}, "Pane not found")
}
