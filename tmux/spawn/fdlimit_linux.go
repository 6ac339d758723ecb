package spawn

import (
	"fmt"
	"os/exec"

	"golang.org/x/sys/unix"
)

// PrepareFDLimit leaves cmd as it is: on Linux the limit is set on the
// running server (SetFDLimit).
func PrepareFDLimit(*exec.Cmd, uint64) (uint64, error) { return 0, nil }

// SetFDLimit sets pid's RLIMIT_NOFILE soft limit to limit, or to its hard
// limit when limit is 0, with prlimit(2), and returns the limit set.
func SetFDLimit(pid int, limit uint64) (uint64, error) {
	var cur unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &cur); err != nil {
		return 0, fmt.Errorf("tmux: read server fd limit: %w", err)
	}
	want := cur
	want.Cur = softFDLimit(limit, cur.Max, 0)
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &want, nil); err != nil {
		return 0, fmt.Errorf("tmux: set server fd limit: %w", err)
	}
	return want.Cur, nil
}
