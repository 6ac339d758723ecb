package tools

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
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
	srv, err := New(Deps{Sup: e.sup, SocketDir: filepath.Dir(e.tm.Socket)}, Options{Settings: mcpserver.Settings{ValidateOutput: true}})
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
	for _, s := range got.Result {
		if s.Refused != nil {
			t.Errorf("server %s refused: %s", e.tm.Socket, *s.Refused)
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

// TestListServersRefusesUnsafeSockets: a live socket in a directory that
// other users may write to (as any user can make one, mode 0777 without
// the sticky bit) is listed as refused with the reason, and nothing
// connects to it: not even the bare connect that finds stale sockets.
func TestListServersRefusesUnsafeSockets(t *testing.T) {
	e := newEnv(t, Readonly)
	dir, err := os.MkdirTemp("", "lsr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var got serversResult
	e.ok("list_servers", map[string]any{"extra_socket_paths": []any{path}}, &got)
	if len(got.Result) != 1 {
		t.Fatalf("list_servers = %+v, want the one socket, refused", got.Result)
	}
	s := got.Result[0]
	want := "directory " + dir + " can be written by other users (mode 0777)"
	if s.IsAlive || s.Refused == nil || !strings.Contains(*s.Refused, want) || s.SocketPath == nil || *s.SocketPath != path {
		t.Errorf("list_servers = %+v (refused %v), want %s refused because %q", s, s.Refused, path, want)
	}
	// A connection made during the call waits in the listener's backlog:
	// accept without blocking.
	raw, err := ln.(*net.UnixListener).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var acceptErr error
	if err := raw.Control(func(fd uintptr) {
		var nfd int
		if nfd, _, acceptErr = syscall.Accept(int(fd)); acceptErr == nil {
			syscall.Close(nfd)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if acceptErr == nil {
		t.Error("something connected to the refused socket")
	} else if !errors.Is(acceptErr, syscall.EAGAIN) {
		t.Fatalf("accept: %v", acceptErr)
	}
}
