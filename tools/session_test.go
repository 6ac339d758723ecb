package tools

import (
	"testing"
)

func TestListWindows(t *testing.T) {
	e := newEnv(t, Readonly)
	e.tmux("new-session", "-d", "-s", "other")
	e.tmux("new-window", "-t", "other:", "-n", "logs")
	var all, other windowsResult
	e.ok("list_windows", nil, &all)
	if len(all.Result) != 3 {
		t.Errorf("list_windows() = %d windows, want 3 (all sessions)", len(all.Result))
	}
	e.ok("list_windows", map[string]any{"session_name": "other", "filters": map[string]any{"window_name": "logs"}}, &other)
	if len(other.Result) != 1 || other.Result[0].WindowName != "logs" || other.Result[0].WindowIndex != "1" {
		t.Errorf("list_windows(other, logs) = %+v, want window logs at index 1", other.Result)
	}
	e.fails("list_windows", map[string]any{"session_id": "other"}, "argument session_id: want a session ID like $1")
	e.fails("list_windows", map[string]any{"session_name": "mai"}, "Object not found: session_name=mai", "[session_not_found]", "list_sessions")
	e.fails("list_windows", map[string]any{"filters": map[string]any{"window_name__xx": "a"}}, "Invalid filter operator 'xx'")
}

func TestGetSessionInfo(t *testing.T) {
	e := newEnv(t, Readonly)
	var s SessionInfo
	e.ok("get_session_info", map[string]any{"session_name": "main"}, &s)
	if s.SessionName != "main" || s.WindowCount != 1 {
		t.Errorf("get_session_info = %+v, want main with 1 window", s)
	}
	e.fails("get_session_info", map[string]any{"session_id": "$999"}, "Object not found: session_id=$999", "[session_not_found]")
}

func TestCreateWindow(t *testing.T) {
	e := newEnv(t, Mutating)
	var w WindowInfo
	e.ok("create_window", map[string]any{"session_name": "main", "window_name": "logs", "environment": map[string]any{"A": "1"}}, &w)
	if w.WindowName != "logs" || w.WindowIndex != "1" || w.WindowActive != "0" || w.ActivePaneID == "" {
		t.Errorf("create_window = %+v, want inactive window logs at index 1", w)
	}
	var b WindowInfo
	e.ok("create_window", map[string]any{"window_name": "first", "direction": "before", "attach": true}, &b)
	if b.WindowIndex != "0" || b.WindowActive != "1" {
		t.Errorf("create_window(before, attach) = %+v, want active window at index 0", b)
	}
	e.fails("create_window", map[string]any{"direction": "sideways"}, "argument direction: want one of before, after")
	e.fails("create_window", map[string]any{"session_name": "nope"}, "Object not found")
	e.fails("create_window", map[string]any{"attach": "maybe"}, "argument attach: want boolean, got string")
}

func TestRenameSession(t *testing.T) {
	e := newEnv(t, Mutating)
	var s SessionInfo
	e.ok("rename_session", map[string]any{"session_name": "main", "new_name": "renamed"}, &s)
	if s.SessionName != "renamed" {
		t.Errorf("rename_session = %+v, want renamed", s)
	}
	e.fails("rename_session", map[string]any{"session_name": "renamed"}, "argument new_name: required")
	e.fails("rename_session", map[string]any{"new_name": "a:b"}, "Bad session name: contains colons")
	e.fails("rename_session", map[string]any{"new_name": "x", "session_name": "main"}, "Object not found")
}

func TestKillSession(t *testing.T) {
	e := newEnv(t, Destructive)
	e.tmux("new-session", "-d", "-s", "doomed")
	var m messageResult
	e.ok("kill_session", map[string]any{"session_name": "doomed"}, &m)
	if m.Result != "Session killed: doomed" {
		t.Errorf("kill_session = %q, want Session killed: doomed", m.Result)
	}
	e.fails("kill_session", nil, "Refusing to kill without an explicit target. Provide session_name or session_id.")
	e.fails("kill_session", map[string]any{"session_name": "doomed"}, "Object not found")
	e.fails("kill_session", map[string]any{"session_id": 3}, "argument session_id: want a session ID like $1")

	pane := e.tmux("display-message", "-p", "-t", "main", "#{pane_id}")
	self := newEnvOn(t, e, Destructive, Caller{SocketPath: e.tm.Socket, Pane: paneID(pane)})
	self.fails("kill_session", map[string]any{"session_name": "main"}, "Refusing to kill the session containing this MCP server's pane.")
}

func TestSelectWindow(t *testing.T) {
	e := newEnv(t, Mutating)
	e.tmux("new-window", "-d", "-t", "main:", "-n", "two")
	var w WindowInfo
	e.ok("select_window", map[string]any{"window_index": "1"}, &w)
	if w.WindowName != "two" || w.WindowActive != "1" {
		t.Errorf("select_window(index 1) = %+v, want active window two", w)
	}
	e.ok("select_window", map[string]any{"direction": "next"}, &w)
	if w.WindowIndex != "0" || w.WindowActive != "1" {
		t.Errorf("select_window(next) = %+v, want active window 0", w)
	}
	e.ok("select_window", map[string]any{"direction": "last"}, &w)
	if w.WindowIndex != "1" {
		t.Errorf("select_window(last) = %+v, want window 1", w)
	}
	e.fails("select_window", nil, "Provide window_id, window_index, or direction.")
	e.fails("select_window", map[string]any{"window_index": "9"}, "Object not found: window_index=9")
	e.fails("select_window", map[string]any{"window_index": "-1"}, "argument window_index: want a non-negative integer")
	e.fails("select_window", map[string]any{"direction": "up"}, "want one of next, previous, last")
}
