package guard

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestIsCaller: is_caller by what was learnt of a server, else by the
// environment (same pane, same socket), else null outside tmux.
func TestIsCaller(t *testing.T) {
	sock := tmux.Socket{Path: "/tmp/tmux-test/default"}
	str := func(b *bool) string {
		if b == nil {
			return "null"
		}
		if *b {
			return "true"
		}
		return "false"
	}
	learnt := NewOwnPanes(nil)
	learnt.remember(sock, ownPane{serverPID: 100, pane: "%2"})
	nowhere := NewOwnPanes(nil)
	nowhere.remember(sock, ownPane{serverPID: 100})
	for _, tt := range []struct {
		name string
		g    Guard
		id   tmux.PaneID
		want string
	}{
		{"outside tmux", Guard{}, "%1", "null"},
		{"learnt, the pane", Guard{Own: learnt}, "%2", "true"},
		{"learnt, another pane", Guard{Own: learnt}, "%1", "false"},
		{"learnt: in no pane, outside tmux", Guard{Own: nowhere}, "%1", "null"},
		{"learnt: in no pane, TMUX set", Guard{Own: nowhere, Caller: Caller{SocketPath: "/x"}}, "%1", "false"},
		{"environment, the pane", Guard{Caller: Caller{SocketPath: sock.Path, Pane: "%1"}}, "%1", "true"},
		{"environment, another socket", Guard{Caller: Caller{SocketPath: "/x", Pane: "%1"}}, "%1", "false"},
	} {
		if got := str(tt.g.IsCaller(tt.id, sock)); got != tt.want {
			t.Errorf("%s: IsCaller(%s) = %s, want %s", tt.name, tt.id, got, tt.want)
		}
	}
}
