package tmux

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Socket names one tmux server: either a socket name under the tmux socket
// directory (tmux -L) or a socket path (tmux -S). Exactly one must be set.
// The zero Socket is invalid; tmux-mcp never relies on tmux's default
// server or on $TMUX to find one.
type Socket struct {
	Name string // -L name
	Path string // -S path
}

// Validate reports whether exactly one of Name and Path is set and the path
// fits in a Unix socket address.
func (s Socket) Validate() error {
	switch {
	case s.Name == "" && s.Path == "":
		return errors.New("tmux: socket needs a name or a path")
	case s.Name != "" && s.Path != "":
		return errors.New("tmux: socket has both a name and a path")
	case s.Path != "" && len(s.Path) >= sunPathLen:
		return fmt.Errorf("tmux: socket path is %d bytes, more than a unix socket allows (%d)", len(s.Path), sunPathLen-1)
	}
	return nil
}

// Args returns the tmux flags that select this server.
func (s Socket) Args() []string {
	if s.Path != "" {
		return []string{"-S", s.Path}
	}
	return []string{"-L", s.Name}
}

// String returns a short human form: the path, or the name.
func (s Socket) String() string {
	if s.Path != "" {
		return s.Path
	}
	return s.Name
}

// ResolvedPath returns the filesystem path of the socket: Path itself, or
// the socket directory tmux uses for -L names (SocketDir) and Name.
func (s Socket) ResolvedPath() string {
	if s.Path != "" {
		return s.Path
	}
	return filepath.Join(SocketDir(), s.Name)
}
