package tools

import (
	"testing"
)

func TestGetWindowInfo(t *testing.T) {
	e := newEnv(t, Readonly)
	var w WindowInfo
	e.ok("get_window_info", nil, &w)
	if w.SessionName != "main" || w.PaneCount != 1 || w.WindowLayout == "" {
		t.Errorf("get_window_info() = %+v, want the first window of main", w)
	}
	var byID WindowInfo
	e.ok("get_window_info", map[string]any{"window_id": w.WindowID}, &byID)
	if byID.WindowID != w.WindowID {
		t.Errorf("get_window_info(%s) = %+v", w.WindowID, byID)
	}
	e.fails("get_window_info", map[string]any{"window_id": "@999"}, "Object not found", "[window_not_found]", "list_windows")
	e.fails("get_window_info", map[string]any{"window_id": "7"}, "argument window_id: want a window ID like @1")
}

func TestRenameWindow(t *testing.T) {
	e := newEnv(t, Mutating)
	var w WindowInfo
	e.ok("rename_window", map[string]any{"new_name": "editor"}, &w)
	if w.WindowName != "editor" {
		t.Errorf("rename_window = %+v, want editor", w)
	}
	e.fails("rename_window", map[string]any{"window_id": w.WindowID}, "argument new_name: required")
	e.fails("rename_window", map[string]any{"new_name": ""}, "argument new_name: must not be empty")
}

func TestKillWindow(t *testing.T) {
	e := newEnv(t, Destructive)
	id := e.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:")
	var m messageResult
	e.ok("kill_window", map[string]any{"window_id": id}, &m)
	if m.Result != "Window killed: "+id {
		t.Errorf("kill_window = %q, want Window killed: %s", m.Result, id)
	}
	e.fails("kill_window", nil, "argument window_id: required")
	e.fails("kill_window", map[string]any{"window_id": id}, "Object not found")

	pane := e.tmux("display-message", "-p", "-t", "main", "#{pane_id}")
	win := e.tmux("display-message", "-p", "-t", "main", "#{window_id}")
	self := newEnvOn(t, e, Destructive, Caller{SocketPath: e.tm.Socket, Pane: paneID(pane)})
	self.fails("kill_window", map[string]any{"window_id": win}, "Refusing to kill the window containing this MCP server's pane.")
}

func TestSelectLayout(t *testing.T) {
	e := newEnv(t, Mutating)
	e.tmux("split-window", "-d", "-t", "main")
	var w WindowInfo
	e.ok("select_layout", map[string]any{"layout": "even-horizontal"}, &w)
	if w.PaneCount != 2 || w.WindowLayout == "" {
		t.Errorf("select_layout = %+v", w)
	}
	// tmux 3.3a segfaults on these: they must not reach it.
	for _, bad := range []string{"nonsense", "x", "tiledx", "zz,80x24,0,0,1"} {
		e.fails("select_layout", map[string]any{"layout": bad}, "argument layout: want even-horizontal")
	}
	// tmux says "invalid layout" (3.3a and later) or "can't set layout" (3.2a).
	e.fails("select_layout", map[string]any{"layout": "abcd,80x24,0,0,1"}, "tmux error", "layout: abcd,80x24,0,0,1", "Valid layouts: even-horizontal")
	e.ok("get_server_info", nil, nil)
	e.fails("select_layout", nil, "argument layout: required")
}

func TestResizeWindow(t *testing.T) {
	e := newEnv(t, Mutating)
	var w WindowInfo
	e.ok("resize_window", map[string]any{"width": 100, "height": 30}, &w)
	if w.WindowWidth != "100" || w.WindowHeight != "30" {
		t.Errorf("resize_window = %sx%s, want 100x30", w.WindowWidth, w.WindowHeight)
	}
	e.fails("resize_window", nil, "Provide height or width.")
	e.fails("resize_window", map[string]any{"height": 0}, "argument height: out of range")
	e.fails("resize_window", map[string]any{"width": 1.5}, "argument width: want integer, got number")
}

func TestMoveWindow(t *testing.T) {
	e := newEnv(t, Mutating)
	e.tmux("new-session", "-d", "-s", "dest")
	id := e.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:", "-n", "mover")
	var w WindowInfo
	e.ok("move_window", map[string]any{"window_id": id, "destination_session": "dest", "destination_index": "5"}, &w)
	if w.WindowID != id || w.SessionName != "dest" || w.WindowIndex != "5" {
		t.Errorf("move_window = %+v, want %s in dest at index 5", w, id)
	}
	e.ok("move_window", map[string]any{"window_id": id}, &w)
	if w.SessionName != "dest" {
		t.Errorf("move_window(no destination) = %+v, want it to stay in dest", w)
	}
	e.fails("move_window", map[string]any{"window_id": id, "destination_index": "x"}, "argument destination_index")
	e.fails("move_window", map[string]any{"window_id": id, "destination_session": "nowhere"}, "Object not found: session_name=nowhere")
}
