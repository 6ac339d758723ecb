package tools

import "testing"

func TestSmoke(t *testing.T) {
	e := newEnv(t, Destructive)
	var got sessionsResult
	e.ok("list_sessions", nil, &got)
	t.Logf("%+v", got)
	var s SessionInfo
	e.ok("create_session", map[string]any{"session_name": "two"}, &s)
	t.Logf("%+v", s)
	var w WindowInfo
	e.ok("create_window", map[string]any{"session_name": "two", "window_name": "w2"}, &w)
	t.Logf("%+v", w)
	var p PaneInfo
	e.ok("split_window", map[string]any{"window_id": w.WindowID, "size": "30%"}, &p)
	t.Logf("%+v", p)
	t.Log(e.fails("kill_window", map[string]any{"window_id": "@99"}))
}
