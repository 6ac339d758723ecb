package tools

import (
	"strings"
	"testing"
)

func TestListPanes(t *testing.T) {
	e := newEnv(t, Readonly)
	pane := e.tmux("display-message", "-p", "-t", "main", "#{pane_id}")
	e.tmux("split-window", "-d", "-t", "main")
	e.tmux("new-session", "-d", "-s", "other")
	var all panesResult
	e.ok("list_panes", nil, &all)
	if len(all.Result) != 3 {
		t.Errorf("list_panes() = %d panes, want 3", len(all.Result))
	}
	for _, p := range all.Result {
		if p.IsCaller != nil {
			t.Errorf("pane %s: is_caller = %v, want null outside tmux", p.PaneID, *p.IsCaller)
		}
	}
	var win panesResult
	e.ok("list_panes", map[string]any{"session_name": "main", "window_index": 0}, &win)
	if len(win.Result) != 2 {
		t.Errorf("list_panes(main:0) = %d panes, want 2", len(win.Result))
	}

	self := newEnvOn(t, e, Readonly, Caller{SocketPath: e.tm.Socket, Pane: paneID(pane)})
	var mine panesResult
	self.ok("list_panes", map[string]any{"filters": map[string]any{"is_caller": "true"}}, &mine)
	if len(mine.Result) != 1 || mine.Result[0].PaneID != pane {
		t.Errorf("list_panes(is_caller) = %+v, want only %s", mine.Result, pane)
	}
	e.fails("list_panes", map[string]any{"window_index": "x"}, "argument window_index: want a non-negative integer")
	e.fails("list_panes", map[string]any{"window_id": "@999"}, "Object not found: window_id=@999", "[window_not_found]")
}

func TestSplitWindow(t *testing.T) {
	e := newEnv(t, Mutating)
	first := e.tmux("display-message", "-p", "-t", "main", "#{pane_id}")
	var p PaneInfo
	e.ok("split_window", map[string]any{"pane_id": first, "direction": "right", "size": "30%", "shell": "sleep 300"}, &p)
	if p.PaneID == first || !strings.HasPrefix(p.PaneID, "%") || !p.PaneAtRight || p.PaneLeft == 0 {
		t.Errorf("split_window(right) = %+v, want a new pane on the right", p)
	}
	var q PaneInfo
	e.ok("split_window", map[string]any{"session_name": "main", "size": 5}, &q)
	if q.PaneHeight != "5" {
		t.Errorf("split_window(size 5) height = %s, want 5", q.PaneHeight)
	}
	e.fails("split_window", map[string]any{"size": "0%"}, `argument size: want a positive number of cells or a percentage like "50%"`)
	e.fails("split_window", map[string]any{"size": "big"}, "argument size")
	e.fails("split_window", map[string]any{"size": true}, "argument size: want string, got boolean")
	e.fails("split_window", map[string]any{"pane_id": "%999"}, "Pane not found: %999", "list_panes")
	e.fails("split_window", map[string]any{"direction": "diagonal"}, "want one of above, below, left, right")
}
