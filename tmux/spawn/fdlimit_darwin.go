package spawn

import (
	"fmt"
	"os/exec"

	"golang.org/x/sys/unix"
)

// PrepareFDLimit makes cmd start with the soft fd limit limit, or our hard
// limit when limit is 0, capped at kern.maxfilesperproc (setrlimit fails
// above it on macOS, and the hard limit is often "unlimited"). It returns
// the limit the server will have.
func PrepareFDLimit(cmd *exec.Cmd, limit uint64) (uint64, error) {
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &cur); err != nil {
		return 0, fmt.Errorf("tmux: read fd limit: %w", err)
	}
	var ceiling uint64
	if n, err := unix.SysctlUint32("kern.maxfilesperproc"); err == nil {
		ceiling = uint64(n)
	}
	n := softFDLimit(limit, cur.Max, ceiling)
	UlimitCommand(cmd, n)
	return n, nil
}

// SetFDLimit does nothing on macOS: PrepareFDLimit set the limit before
// the server started.
func SetFDLimit(int, uint64) (uint64, error) { return 0, nil }
