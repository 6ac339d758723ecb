package tmux

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"github.com/tmux-mcp/tmux-mcp/tmux/native"
)

// A tmux client trusts its server completely: it sends the server its
// whole environment while it identifies itself, and runs whatever program
// the server names (MSG_SHELL, MSG_EXEC) or asks it to lock with
// (MSG_LOCK). tmux refuses foreign users only on the server's side, so a
// socket that another local user made, or a directory another user can
// write to, lets that user answer in tmux's place. tmux-mcp's own clients
// (package native) send no secrets and obey no such message, but a tmux it runs
// would, and neither should talk to another user's server at all: before
// any client of ours connects, CheckSocket checks the path, and after
// connecting the listener's credentials are checked where the platform
// gives them (native.PeerUID).

// ErrUntrustedSocket matches the errors of a socket that tmux-mcp will not
// connect to, because another user could have put it there or answers on
// it. The error is also an ErrPermission.
var ErrUntrustedSocket = errors.New("tmux: socket not trusted")

// untrustedError is a refusal: the path, why, and what to do.
type untrustedError struct {
	path, why string
}

func (e *untrustedError) Error() string {
	return fmt.Sprintf("refusing to connect to %s: %s; tmux-mcp talks only to tmux servers of its own user (uid %d) "+
		"whose socket and every directory above it no other user can change", e.path, e.why, os.Getuid())
}

func (e *untrustedError) Is(target error) bool {
	return target == ErrUntrustedSocket || target == ErrPermission
}

// CheckSocket returns nil when path, if it exists, may be connected to: it
// is a socket owned by this user, and no directory on the way to it (after
// symlinks) can be changed by another user: each is owned by this user or
// by root, and one that others may write to has the sticky bit (as /tmp),
// so that nobody else can rename or replace what this user made in it. A
// path that does not exist yet passes when its nearest existing directory
// passes (tmux creates the socket there). The error matches
// ErrUntrustedSocket and ErrPermission.
func CheckSocket(path string) error {
	return checkSocket(path, os.Getuid())
}

func checkSocket(path string, uid int) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return &untrustedError{path: path, why: err.Error()}
	}
	resolved, err := filepath.EvalSymlinks(abs)
	var fi os.FileInfo
	if err == nil {
		// The path may go between the two calls: a tmux that starts a
		// server unlinks a stale socket before it binds its own. Gone is
		// not existing yet, not a refusal.
		fi, err = os.Lstat(resolved)
	}
	switch {
	case err == nil:
		if fi.Mode().Type() != fs.ModeSocket {
			return &untrustedError{path: path, why: "it is not a socket"}
		}
		if owner, ok := ownerOf(fi); ok && owner != uid {
			return &untrustedError{path: path, why: fmt.Sprintf("it belongs to uid %d", owner)}
		}
		return checkDirs(path, filepath.Dir(resolved), uid)
	case errors.Is(err, fs.ErrNotExist):
		// Check what exists of the path: the socket will be made there.
		dir := filepath.Dir(abs)
		for {
			r, err := filepath.EvalSymlinks(dir)
			if err == nil {
				return checkDirs(path, r, uid)
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return nil
			}
			dir = parent
		}
	default:
		return &untrustedError{path: path, why: err.Error()}
	}
}

// checkDirs checks dir and every directory above it (dir has no symlinks).
func checkDirs(path, dir string, uid int) error {
	for {
		fi, err := os.Stat(dir)
		if err != nil {
			return &untrustedError{path: path, why: err.Error()}
		}
		owner, ok := ownerOf(fi)
		mode := fi.Mode()
		switch {
		case !ok:
		case owner != uid && owner != 0:
			return &untrustedError{path: path, why: fmt.Sprintf("directory %s belongs to uid %d", dir, owner)}
		case mode.Perm()&0o022 != 0 && mode&fs.ModeSticky == 0:
			return &untrustedError{path: path, why: fmt.Sprintf("directory %s can be written by other users (mode %#o)", dir, mode.Perm())}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// ownerOf returns a file's owner uid.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// checkPeer returns nil when the process listening on conn's other end
// runs as this user (where the platform tells; see native.PeerUID).
func checkPeer(path string, conn *net.UnixConn) error {
	uid, ok, err := native.PeerUID(conn)
	if err != nil {
		return &untrustedError{path: path, why: "its listener's credentials cannot be read: " + err.Error()}
	}
	if ok && uid != os.Getuid() {
		return &untrustedError{path: path, why: fmt.Sprintf("the server listening on it runs as uid %d", uid)}
	}
	return nil
}
