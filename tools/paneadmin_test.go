package tools

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
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

func TestRespawnPane(t *testing.T) {
	e := newEnv(t, Mutating)
	pane := e.split(e.firstPane(), "sleep 3600")
	before := e.tmux("display-message", "-p", "-t", pane, "#{pane_pid}")
	var p PaneInfo
	e.ok("respawn_pane", map[string]any{"pane_id": pane, "shell": "sleep 7200"}, &p)
	if p.PaneID != pane || p.PanePID == before {
		t.Errorf("respawn_pane = %s pid %s, want %s with a new pid (was %s)", p.PaneID, p.PanePID, pane, before)
	}
	e.fails("respawn_pane", map[string]any{"pane_id": pane, "kill": false}, "still active")

	// kill=false respawns a dead pane; environment reaches the new process.
	e.tmux("set-option", "-p", "-t", pane, "remain-on-exit", "on")
	e.tmux("respawn-pane", "-k", "-t", pane, "true")
	tmuxtest.WaitFor(t, 5*time.Second, "the pane to die", func() bool {
		out, _ := e.tm.Tmux("display-message", "-p", "-t", pane, "#{pane_dead}")
		return out == "1"
	})
	e.ok("respawn_pane", map[string]any{"pane_id": pane, "kill": false,
		"shell":       `sh -c 'echo "got $TMCP_A $TMCP_B"; exec sleep 600'`,
		"environment": map[string]any{"TMCP_A": "bar", "TMCP_B": "qux"}}, &p)
	tmuxtest.WaitFor(t, 5*time.Second, "the environment in the pane", func() bool {
		out, _ := e.tm.Tmux("capture-pane", "-p", "-t", pane)
		return strings.Contains(out, "got bar qux")
	})

	e.fails("respawn_pane", nil, "argument pane_id: required")
	e.fails("respawn_pane", map[string]any{"pane_id": "%999"}, "Pane not found")
	self := newEnvOn(t, e, Mutating, Caller{SocketPath: e.tm.Socket, Pane: paneID(pane)})
	self.fails("respawn_pane", map[string]any{"pane_id": pane}, refuseRespawn, "[refused]")
	if got := e.tmux("display-message", "-p", "-t", pane, "#{pane_pid}"); got != p.PanePID {
		t.Errorf("refused respawn changed the pane's pid from %s to %s", p.PanePID, got)
	}
}

func TestKillPane(t *testing.T) {
	e := newEnv(t, Destructive)
	pane := e.split(e.firstPane())
	self := newEnvOn(t, e, Destructive, Caller{SocketPath: e.tm.Socket, Pane: paneID(pane)})
	self.fails("kill_pane", map[string]any{"pane_id": pane}, refusePane, "[refused]")
	var m messageResult
	e.ok("kill_pane", map[string]any{"pane_id": pane}, &m)
	if m.Result != "Pane killed: "+pane {
		t.Errorf("kill_pane = %q, want Pane killed: %s", m.Result, pane)
	}
	if out := e.tmux("list-panes", "-a", "-F", "#{pane_id}"); strings.Contains(out, pane) {
		t.Errorf("panes after kill_pane = %q, want no %s", out, pane)
	}
	e.fails("kill_pane", map[string]any{"pane_id": pane}, "Pane not found")
	e.fails("kill_pane", nil, "argument pane_id: required")
}

func TestDisplayMessage(t *testing.T) {
	e := newEnv(t, Readonly)
	pane := e.firstPane()
	var m messageResult
	e.ok("display_message", map[string]any{"format_string": "#{pane_width}x#{pane_height}"}, &m)
	if !regexp.MustCompile(`^\d+x\d+$`).MatchString(m.Result) {
		t.Errorf("display_message(size) = %q, want NxM", m.Result)
	}
	e.ok("display_message", map[string]any{"format_string": "-F #{window_zoomed_flag}", "pane_id": pane}, &m)
	if m.Result != "-F 0" {
		t.Errorf("display_message(-F ...) = %q, want \"-F 0\"", m.Result)
	}

	// A format job, and a value that E: or T: expands as a format (jobs
	// included), are refused before anything reaches tmux.
	flag := filepath.Join(e.tm.Dir, "tool-job")
	e.tmux("set-option", "-g", "@job", "#(touch "+flag+")")
	for _, f := range []string{"#(touch " + flag + ")", "x#{E:@job}", "#{T:@job}", "#{l;E:@job}", "#{E;l:@job}"} {
		want := refuseExpanding
		if strings.Contains(f, "#(") {
			want = refuseJobs
		}
		e.fails("display_message", map[string]any{"format_string": f}, want, "[refused]")
	}
	if _, err := os.Stat(flag); err == nil {
		t.Errorf("a refused display_message ran a job: %s exists", flag)
	}
	e.fails("display_message", nil, "argument format_string: required")
	e.fails("display_message", map[string]any{"format_string": "x", "pane_id": "%999"}, "Pane not found")
}
