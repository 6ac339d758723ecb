package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGetPaneInfo(t *testing.T) {
	e := newEnv(t, Readonly)
	left := e.firstPane()
	right := e.split(left, "-h")
	var p PaneInfo
	e.ok("get_pane_info", nil, &p)
	if p.PaneID != left || p.PaneWidth == "" || p.PaneHeight == "" || p.PaneActive != "1" {
		t.Errorf("get_pane_info() = %+v, want the active pane %s", p, left)
	}
	var r PaneInfo
	e.ok("get_pane_info", map[string]any{"pane_id": right}, &r)
	if !r.PaneAtRight || r.PaneAtLeft || !r.PaneAtTop || !r.PaneAtBottom || r.PaneLeft <= p.PaneLeft || !strings.HasPrefix(r.PaneTTY, "/dev/") {
		t.Errorf("get_pane_info(%s) = %+v, want the right-hand pane", right, r)
	}
	// Without pane_id the window's active pane is meant, as tmux means it.
	e.tmux("select-pane", "-t", right)
	e.ok("get_pane_info", map[string]any{"window_id": p.WindowID}, &p)
	if p.PaneID != right {
		t.Errorf("get_pane_info(window %s) = %s, want the active pane %s", p.WindowID, p.PaneID, right)
	}
	e.ok("get_pane_info", map[string]any{"session_name": "main"}, &p)
	if p.PaneID != right {
		t.Errorf("get_pane_info(session main) = %s, want the active pane %s", p.PaneID, right)
	}
	e.fails("get_pane_info", map[string]any{"pane_id": "%999"}, "Pane not found: %999", "list_panes")
	e.fails("get_pane_info", map[string]any{"pane_id": "1"}, "argument pane_id: want a pane ID like %1")
	e.fails("get_pane_info", map[string]any{"session_name": "nope"}, "Object not found: session_name=nope", "[session_not_found]")
	e.fails("get_pane_info", map[string]any{"window_id": "@99"}, "Object not found: window_id=@99", "[window_not_found]")
}

func TestFindPaneByPosition(t *testing.T) {
	e := newEnv(t, Readonly)
	tl := e.firstPane()
	e.split(tl, "-h")
	e.split(tl, "-v")
	e.tmux("split-window", "-d", "-t", "main")
	e.tmux("select-layout", "-t", "main", "tiled")
	seen := map[string]string{}
	for _, corner := range []string{"top-left", "top-right", "bottom-left", "bottom-right"} {
		var p PaneInfo
		e.ok("find_pane_by_position", map[string]any{"corner": corner}, &p)
		vert, horiz, _ := strings.Cut(corner, "-")
		if (vert == "top") != p.PaneAtTop || (vert == "bottom") != p.PaneAtBottom ||
			(horiz == "left") != p.PaneAtLeft || (horiz == "right") != p.PaneAtRight {
			t.Errorf("%s: got %s at top=%v bottom=%v left=%v right=%v", corner, p.PaneID, p.PaneAtTop, p.PaneAtBottom, p.PaneAtLeft, p.PaneAtRight)
		}
		if other, dup := seen[p.PaneID]; dup {
			t.Errorf("%s and %s both gave %s, want 4 distinct panes", corner, other, p.PaneID)
		}
		seen[p.PaneID] = corner
	}
	if seen[tl] != "top-left" {
		t.Errorf("top-left = %v, want %s", seen, tl)
	}
	single := e.tmux("new-window", "-d", "-P", "-F", "#{window_id} #{pane_id}", "-t", "main:")
	win, pane, _ := strings.Cut(single, " ")
	for _, corner := range []string{"top-left", "bottom-right"} {
		var p PaneInfo
		e.ok("find_pane_by_position", map[string]any{"corner": corner, "window_id": win}, &p)
		if p.PaneID != pane {
			t.Errorf("%s of a one-pane window = %s, want %s", corner, p.PaneID, pane)
		}
	}
	e.fails("find_pane_by_position", map[string]any{"corner": "middle"}, "argument corner: want one of top-left")
	e.fails("find_pane_by_position", nil, "argument corner: required")
	e.fails("find_pane_by_position", map[string]any{"corner": "top-left", "window_id": "@99"}, "Object not found: window_id=@99")
}

func TestSetPaneTitle(t *testing.T) {
	e := newEnv(t, Mutating)
	pane := e.firstPane()
	flag := filepath.Join(e.tm.Dir, "title-job")
	// select-pane -T expands formats: unescaped, this title runs a job
	// and loses its #{...} and #S.
	title := "build #(touch " + flag + ") #{pane_id} #S ## #[fg=red] 100% done #"
	var p PaneInfo
	e.ok("set_pane_title", map[string]any{"title": title}, &p)
	if p.PaneID != pane || p.PaneTitle != title {
		t.Errorf("set_pane_title = %s %q, want %s %q", p.PaneID, p.PaneTitle, pane, title)
	}
	if got := e.tmux("display-message", "-p", "-t", pane, "#{pane_title}"); got != title {
		t.Errorf("tmux pane_title = %q, want %q", got, title)
	}
	if _, err := os.Stat(flag); err == nil {
		t.Errorf("the title ran a #(...) job: %s exists", flag)
	}
	e.fails("set_pane_title", nil, "argument title: required")
	e.fails("set_pane_title", map[string]any{"title": "x", "pane_id": "%999"}, "Pane not found")
}
