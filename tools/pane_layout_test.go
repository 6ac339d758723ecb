package tools

import (
	"testing"
)

func TestSelectPane(t *testing.T) {
	e := newEnv(t, Mutating)
	top := e.firstPane()
	bottom := e.split(top, "-v")
	var p PaneInfo
	e.ok("select_pane", map[string]any{"pane_id": bottom}, &p)
	if p.PaneID != bottom || p.PaneActive != "1" {
		t.Errorf("select_pane(%s) = %s active %s, want it active", bottom, p.PaneID, p.PaneActive)
	}
	e.ok("select_pane", map[string]any{"direction": "up", "session_name": "main"}, &p)
	if p.PaneID != top {
		t.Errorf("select_pane(up) = %s, want %s", p.PaneID, top)
	}
	if got := e.tmux("display-message", "-p", "-t", "main", "#{pane_id}"); got != top {
		t.Errorf("active pane = %s, want %s", got, top)
	}

	// next/previous stay in the window named, even when it is not the
	// active window of its session.
	w2 := e.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:")
	a := e.tmux("display-message", "-p", "-t", w2, "#{pane_id}")
	b := e.split(a, "-h")
	c := e.split(b, "-h")
	activeOf := func(w string) string { return e.tmux("display-message", "-p", "-t", w, "#{pane_id}") }
	w1Before := activeOf("main:0")
	for _, tt := range []struct{ dir, want string }{{"next", b}, {"next", c}, {"next", a}, {"previous", c}} {
		e.ok("select_pane", map[string]any{"direction": tt.dir, "window_id": w2}, &p)
		if p.PaneID != tt.want || p.WindowID != w2 {
			t.Errorf("select_pane(%s, %s) = %s in %s, want %s", tt.dir, w2, p.PaneID, p.WindowID, tt.want)
		}
	}
	if got := activeOf("main:0"); got != w1Before {
		t.Errorf("window 0's active pane changed from %s to %s", w1Before, got)
	}
	e.fails("select_pane", nil, "Provide either pane_id or direction.")
	e.fails("select_pane", map[string]any{"direction": "sideways"}, "argument direction: want one of up, down")
	e.fails("select_pane", map[string]any{"pane_id": "%999"}, "Pane not found")
}

func TestSwapPane(t *testing.T) {
	e := newEnv(t, Mutating)
	p1 := e.firstPane()
	p2 := e.split(p1, "-h")
	var p PaneInfo
	e.ok("swap_pane", map[string]any{"source_pane_id": p1, "target_pane_id": p2}, &p)
	if p.PaneID != p1 || p.PaneLeft == 0 {
		t.Errorf("swap_pane = %s at left %d, want %s moved to the right", p.PaneID, p.PaneLeft, p1)
	}
	if got := e.tmux("display-message", "-p", "-t", p2, "#{pane_left}"); got != "0" {
		t.Errorf("%s pane_left = %s after the swap, want 0", p2, got)
	}
	e.fails("swap_pane", map[string]any{"source_pane_id": p1, "target_pane_id": "%999"}, "Pane not found: %999")
	e.fails("swap_pane", map[string]any{"source_pane_id": "x", "target_pane_id": p2}, "argument source_pane_id")
	e.fails("swap_pane", map[string]any{"source_pane_id": p1}, "argument target_pane_id: required")
}

func TestResizePane(t *testing.T) {
	e := newEnv(t, Mutating)
	top := e.firstPane()
	bottom := e.split(top, "-v")
	var p PaneInfo
	e.ok("resize_pane", map[string]any{"pane_id": bottom, "height": 10}, &p)
	if p.PaneHeight != "10" {
		t.Errorf("resize_pane(height 10) = %s, want 10", p.PaneHeight)
	}
	zoomed := func() string {
		return e.tmux("display-message", "-p", "-t", "main", "#{window_zoomed_flag} #{pane_id}")
	}
	for _, tt := range []struct {
		pane string
		zoom bool
		want string
	}{
		{top, true, "1 " + top},
		{top, true, "1 " + top}, // idempotent: a second zoom does not unzoom
		{bottom, true, "1 " + bottom},
		{bottom, false, "0 " + bottom},
		{bottom, false, "0 " + bottom},
	} {
		e.ok("resize_pane", map[string]any{"pane_id": tt.pane, "zoom": tt.zoom}, nil)
		if got := zoomed(); got != tt.want {
			t.Errorf("resize_pane(%s, zoom %v): zoomed flag and active pane = %q, want %q", tt.pane, tt.zoom, got, tt.want)
		}
	}
	e.fails("resize_pane", map[string]any{"zoom": true, "height": 5}, "Cannot combine zoom with height/width")
	e.fails("resize_pane", nil, "Provide height, width or zoom.")
	e.fails("resize_pane", map[string]any{"width": 0}, "argument width: out of range")
}
