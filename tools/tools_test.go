package tools

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
)

func TestListSessions(t *testing.T) {
	e := newEnv(t, Readonly)
	e.tmux("new-session", "-d", "-s", "Build-2")
	tests := []struct {
		name    string
		filters any
		want    []string
	}{
		{"all", nil, []string{"Build-2", "main"}},
		{"exact", map[string]any{"session_name": "main"}, []string{"main"}},
		{"iexact", map[string]any{"session_name__iexact": "build-2"}, []string{"Build-2"}},
		{"icontains", map[string]any{"session_name__icontains": "ILD"}, []string{"Build-2"}},
		{"startswith", map[string]any{"session_name__startswith": "ma"}, []string{"main"}},
		{"in array", map[string]any{"session_name__in": `["main","x"]`}, []string{"main"}},
		{"nin list", map[string]any{"session_name__nin": "main, x"}, []string{"Build-2"}},
		{"regex", map[string]any{"session_name__regex": `^B.*\d$`}, []string{"Build-2"}},
		{"iregex", map[string]any{"session_name__iregex": `^build`}, []string{"Build-2"}},
		{"JSON string", `{"session_name__endswith": "in"}`, []string{"main"}},
		{"number field", map[string]any{"window_count": 1}, []string{"Build-2", "main"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{}
			if tt.filters != nil {
				args["filters"] = tt.filters
			}
			var got sessionsResult
			e.ok("list_sessions", args, &got)
			var names []string
			for _, s := range got.Result {
				names = append(names, s.SessionName)
				if !strings.HasPrefix(s.SessionID, "$") || !strings.HasPrefix(s.ActivePaneID, "%") {
					t.Errorf("session %+v: want $N session_id and %%N active_pane_id", s)
				}
			}
			if strings.Join(names, ",") != strings.Join(tt.want, ",") {
				t.Errorf("sessions = %v, want %v", names, tt.want)
			}
		})
	}
	bad := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"bad operator", map[string]any{"filters": map[string]any{"session_name__badop": "x"}},
			[]string{"Invalid filter operator 'badop' in 'session_name__badop'. Valid operators: eq, exact, iexact"}},
		{"bad field", map[string]any{"filters": map[string]any{"nope": "x"}}, []string{"Invalid filter field 'nope'", "session_name"}},
		{"bad regex", map[string]any{"filters": map[string]any{"session_name__regex": "[x"}}, []string{"Invalid regex pattern: "}},
		{"bad JSON", map[string]any{"filters": `{"session_name": secret`}, []string{"Invalid filters JSON: syntax error at byte"}},
		{"not an object", map[string]any{"filters": `["a"]`}, []string{"filters must be a JSON object, got list"}},
		{"wrong type", map[string]any{"filters": 5}, []string{"argument filters: want object, got number"}},
		{"unknown argument", map[string]any{"bogus": 1}, []string{"unknown argument(s): bogus", "Accepted: filters, limit, socket_name"}},
		{"socket path", map[string]any{"socket_name": "/tmp/x"}, []string{"argument socket_name"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			got := e.fails("list_sessions", tt.args, tt.want...)
			if strings.Contains(got, "secret") {
				t.Errorf("error %q echoes the argument value", got)
			}
		})
	}
}

func TestListServers(t *testing.T) {
	e := newEnv(t, Readonly, func(d *Deps) {})
	e.d.SocketDir = ""
	// The socket directory of the test's server holds exactly its socket.
	srv, err := New(Deps{Sup: e.sup, SocketDir: filepath.Dir(e.tm.Socket)}, Options{ValidateOutput: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	e.c = startClient(t, srv)
	var got serversResult
	e.ok("list_servers", map[string]any{"extra_socket_paths": []any{"/nonexistent/sock", e.tm.Socket}}, &got)
	if len(got.Result) != 2 {
		t.Fatalf("list_servers = %+v, want the test server twice (scan and extra path)", got.Result)
	}
	for _, s := range got.Result {
		if !s.IsAlive || s.SocketPath == nil || *s.SocketPath != e.tm.Socket || s.SessionCount != 1 || s.Version == nil {
			t.Errorf("server %+v: want alive at %s with 1 session and a version", s, e.tm.Socket)
		}
	}
	e.fails("list_servers", map[string]any{"extra_socket_paths": "x"}, "argument extra_socket_paths: want array, got string")
	e.fails("list_servers", map[string]any{"extra_socket_paths": []any{1}}, "want an array of strings")
	e.fails("list_servers", map[string]any{"socket_name": "x"}, "unknown argument(s): socket_name")
}

func TestCreateSession(t *testing.T) {
	e := newEnv(t, Mutating)
	var s SessionInfo
	e.ok("create_session", map[string]any{"session_name": "work", "window_name": "editor", "x": 100, "y": 30,
		"start_directory": "/tmp", "environment": `{"TMCP_TOKEN": "s3cret"}`, "suppress_persistent_history": true}, &s)
	if s.SessionName != "work" || !strings.HasPrefix(s.SessionID, "$") || s.ActivePaneID == "" || s.WindowCount != 1 {
		t.Errorf("create_session = %+v, want session work with one window and an active pane", s)
	}
	if got := e.tmux("show-environment", "-t", "work", "TMCP_TOKEN"); got != "TMCP_TOKEN=s3cret" {
		t.Errorf("session environment: got %q, want TMCP_TOKEN=s3cret", got)
	}
	if got := e.tmux("show-environment", "-t", "work", "HISTFILE"); got != "HISTFILE=" {
		t.Errorf("suppress_persistent_history: got %q, want HISTFILE=", got)
	}
	want := "editor 100x30"
	if e.caps().ControlClientSizesWindows {
		want = "editor 80x24" // tmux 3.2a: a known limit, see the capability
	}
	if got := e.tmux("display-message", "-p", "-t", s.SessionID, "#{window_name} #{window_width}x#{window_height}"); got != want {
		t.Errorf("window: got %q, want %s", got, want)
	}
	e.fails("create_session", map[string]any{"session_name": "work"}, "duplicate session", "[duplicate_session]")
	e.fails("create_session", map[string]any{"session_name": "a.b"}, "Bad session name: contains periods (session name: a.b)")
	e.fails("create_session", map[string]any{"session_name": "a:b"}, "Bad session name: contains colons")
	e.fails("create_session", map[string]any{"session_name": "__tmux_mcp"}, "reserved for tmux-mcp")
	e.fails("create_session", map[string]any{"x": 0}, "argument x: out of range: want 1 to 10000")
	e.fails("create_session", map[string]any{"y": "tall"}, "argument y: want integer, got string")
	got := e.fails("create_session", map[string]any{"environment": map[string]any{"HISTFILE": "/home/me/.h"},
		"suppress_persistent_history": true}, "HISTFILE conflicts with suppress_persistent_history")
	if strings.Contains(got, "/home/me") {
		t.Errorf("error %q echoes an environment value", got)
	}
}

func TestKillServer(t *testing.T) {
	e := newEnv(t, Destructive, func(d *Deps) { d.Caller = Caller{Pane: "%0"} })
	e.fails("kill_server", nil, "Refusing to kill the tmux server while this MCP server is running inside it.")
	e.fails("kill_server", map[string]any{"socket_name": "a/b"}, "argument socket_name")

	e2 := newEnv(t, Destructive)
	var m messageResult
	res := e2.ok("kill_server", nil, &m)
	if m.Result != "Server killed successfully" || text(res) != "Server killed successfully" {
		t.Errorf("kill_server = %q / %q, want Server killed successfully", m.Result, text(res))
	}
	if pid := e2.tm.PID(); pid != 0 {
		t.Errorf("server still answers with pid %d after kill_server", pid)
	}
}

// TestKillServerNoServer checks that kill_server never starts a server in
// order to kill it: with none running it fails and none is started.
func TestKillServerNoServer(t *testing.T) {
	killed := newEnv(t, Destructive)
	killed.ok("kill_server", nil, nil)
	never := tmuxtest.New(t)
	tests := []struct {
		name string
		e    *env
	}{
		{"killed before", killed},
		{"never started", newEnvOver(t, never, testConfig(never), Destructive)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := *tt.e
			e.t = t
			got := e.fails("kill_server", nil, "no tmux server running on "+e.tm.Socket+"; nothing to kill", "list_servers")
			if !strings.Contains(got, "[no_server]") && !strings.Contains(got, "[socket_missing]") {
				t.Errorf("kill_server error %q: want class [no_server] or [socket_missing]", got)
			}
			if pid := e.tm.PID(); pid != 0 {
				e.tm.Track(pid)
				t.Errorf("kill_server with no server: got a server with pid %d, want none started", pid)
			}
		})
	}
}

func TestGetServerInfo(t *testing.T) {
	e := newEnv(t, Readonly)
	var got ServerInfo
	e.ok("get_server_info", nil, &got)
	if !got.IsAlive || got.SessionCount != 1 || got.Version == nil || got.SocketPath == nil || *got.SocketPath != e.tm.Socket {
		t.Errorf("get_server_info = %+v, want alive, 1 session, version, socket %s", got, e.tm.Socket)
	}
	e.fails("get_server_info", map[string]any{"socket_name": true}, "argument socket_name: want string, got boolean")
}

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

func TestServerHealth(t *testing.T) {
	e := newEnv(t, Readonly)
	var h struct {
		State  string `json:"state"`
		Socket string `json:"socket"`
	}
	e.ok("server_health", nil, &h)
	if h.State != "up" || h.Socket != e.tm.Socket {
		t.Errorf("server_health = %+v, want state up on %s", h, e.tm.Socket)
	}
	e.fails("server_health", map[string]any{"socket_name": []any{"x"}}, "argument socket_name: want string, got array")
}

// TestPanicIsAnErrorResult checks that a panicking handler yields an error
// result and the server keeps serving.
func TestPanicIsAnErrorResult(t *testing.T) {
	e := newEnv(t, Readonly)
	e.srv.MCP.AddTool(mcp.NewTool("boom"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("kaboom")
	})
	e.fails("boom", nil, "internal error in boom: panic: kaboom", "the server keeps serving")
	e.ok("list_sessions", nil, nil)
}

// newEnvOn is another MCP server (at tier, as caller) over e's supervisor.
func newEnvOn(t *testing.T, e *env, tier Tier, caller Caller) *env {
	t.Helper()
	srv, err := New(Deps{Sup: e.sup, Tier: tier, Caller: caller}, Options{ValidateOutput: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &env{t: t, tm: e.tm, sup: e.sup, srv: srv, c: startClient(t, srv), d: Deps{Sup: e.sup, Tier: tier, Caller: caller}}
}
