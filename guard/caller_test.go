package guard

import (
	"path/filepath"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

func TestParseCaller(t *testing.T) {
	got := ParseCaller("/tmp/tmux-1000/default,4242,3", "%7")
	want := Caller{SocketPath: "/tmp/tmux-1000/default", ServerPID: 4242, Pane: "%7"}
	if got != want {
		t.Errorf("ParseCaller = %+v, want %+v", got, want)
	}
	if got := ParseCaller("", ""); got.InTmux() {
		t.Errorf("ParseCaller(empty).InTmux() = true, want false")
	}
}

// TestCallerOn: TMUX names the server by socket path (compared by real
// path) or by socket name; a pane without a socket matches any server.
func TestCallerOn(t *testing.T) {
	dir := t.TempDir()
	sock := tmux.Socket{Path: filepath.Join(dir, "default")}
	for _, tt := range []struct {
		name string
		c    Caller
		sock tmux.Socket
		want bool
	}{
		{"outside tmux", Caller{}, sock, false},
		{"a pane, no socket", Caller{Pane: "%1"}, sock, true},
		{"same path", Caller{SocketPath: sock.Path, Pane: "%1"}, sock, true},
		{"same path, cleaned", Caller{SocketPath: dir + "/./default"}, sock, true},
		{"same name", Caller{SocketPath: "/elsewhere/work"}, tmux.Socket{Name: "work"}, true},
		{"another path", Caller{SocketPath: filepath.Join(dir, "other")}, sock, false},
		{"another name", Caller{SocketPath: "/elsewhere/work"}, tmux.Socket{Name: "play"}, false},
	} {
		if got := tt.c.On(tt.sock); got != tt.want {
			t.Errorf("%s: %+v.On(%+v) = %v, want %v", tt.name, tt.c, tt.sock, got, tt.want)
		}
	}
}
