package guard

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Caller identifies the pane the MCP process runs in.
type Caller struct {
	SocketPath string      // first field of $TMUX
	ServerPID  int         // second field of $TMUX
	Pane       tmux.PaneID // $TMUX_PANE
}

// ParseCaller parses the values of TMUX ("socket_path,server_pid,session")
// and TMUX_PANE ("%N"). Both empty means not inside tmux.
func ParseCaller(tmuxEnv, tmuxPane string) Caller {
	var c Caller
	if tmuxEnv != "" {
		f := strings.Split(tmuxEnv, ",")
		c.SocketPath = f[0]
		if len(f) > 1 {
			c.ServerPID, _ = strconv.Atoi(f[1])
		}
	}
	if strings.HasPrefix(tmuxPane, "%") {
		c.Pane = tmux.PaneID(tmuxPane)
	}
	return c
}

// InTmux reports whether the MCP process runs inside tmux.
func (c Caller) InTmux() bool { return c.SocketPath != "" || c.Pane != "" }

// On is CallerOnServer's test for one caller's TMUX and TMUX_PANE.
func (c Caller) On(sock tmux.Socket) bool {
	if !c.InTmux() {
		return false
	}
	if c.SocketPath == "" {
		return true
	}
	if samePath(c.SocketPath, sock.ResolvedPath()) {
		return true
	}
	return sock.Name != "" && filepath.Base(c.SocketPath) == sock.Name
}

func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if ra, err := filepath.EvalSymlinks(a); err == nil {
		a = ra
	}
	if rb, err := filepath.EvalSymlinks(b); err == nil {
		b = rb
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
