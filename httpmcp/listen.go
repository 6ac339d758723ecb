package httpmcp

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// listen opens the listener that --http or --http-socket names
// (Options.Addr or Options.Socket).
func listen(o Options) (net.Listener, error) {
	if o.Socket != "" {
		return listenUnix(o.Socket)
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	return ln, nil
}

// listenUnix listens on a unix socket that only its owner can connect to
// (mode 0600). The socket is made under umask 0177, so it is never open to
// others, not even between bind and chmod; umask is per process, which is
// why this runs before tmux-mcp starts anything else. A socket file that
// no server answers on (left by one that died) is replaced; a live one or
// another kind of file is not.
func listenUnix(path string) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != os.ModeSocket {
			return nil, fmt.Errorf("--http-socket %s: exists and is not a socket", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("--http-socket %s: another server is listening on it", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("--http-socket: remove stale socket: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--http-socket: %w", err)
	}
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("--http-socket: %w", err)
	}
	return ln, nil
}
