package tmux

import (
	"os"
	"path/filepath"
	"strconv"
)

// The socket directory of -L names, as tmux computes it (make_label and
// expand_paths in tmux.c): the first of $TMUX_TMPDIR and the
// system's temporary directory that resolves (realpath; one that does not
// is skipped), then tmux-UID with the real uid. The system directory is
// the platform's (socketdir_linux.go, socketdir_darwin.go): /tmp on Linux,
// /private/tmp on macOS, where /tmp is a symlink to it and tmux's realpath
// gives /private/tmp/tmux-UID. So does the length limit of a socket path
// (sunPathLen, the size of sun_path).

// SocketDir returns the directory tmux puts the sockets of -L names in for
// this process's environment and uid.
func SocketDir() string { return SocketDirFor(os.Getenv("TMUX_TMPDIR")) }

// SocketDirFor returns the socket directory for this uid and the given
// value of $TMUX_TMPDIR ("" when unset: tmux skips an empty one too).
func SocketDirFor(tmuxTmpdir string) string {
	return socketDir(tmuxTmpdir, systemTmpDir, os.Getuid(), filepath.EvalSymlinks)
}

// socketDir applies tmux's rule to the value of $TMUX_TMPDIR, the system
// temporary directory and a uid, resolving symlinks with resolve. When no
// candidate resolves (tmux then fails with "no suitable socket path"), the
// system directory is used as it is.
func socketDir(tmuxTmpdir, systemTmp string, uid int, resolve func(string) (string, error)) string {
	dir := systemTmp
	for _, c := range []string{tmuxTmpdir, systemTmp} {
		if c == "" {
			continue // unset, or realpath("") fails
		}
		if r, err := resolve(c); err == nil {
			dir = r
			break
		}
	}
	return filepath.Join(dir, "tmux-"+strconv.Itoa(uid))
}
