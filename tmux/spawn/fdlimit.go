package spawn

import (
	"os/exec"
	"strconv"
)

// The fd limit of a server tmux-mcp starts. A tmux server inherits the
// RLIMIT_NOFILE soft limit of whoever started it and livelocks for good when
// it reaches it, so StartServer gives the server its own (StartOptions.FDLimit).
// How it reaches the child is the platform's (the seam is PrepareFDLimit and
// SetFDLimit, side by side in fdlimit_linux.go and fdlimit_darwin.go):
//
//   - Linux sets it on the running server with prlimit(2), a moment after
//     the start, before the server accepts its first client.
//   - macOS has no prlimit: one process cannot change another's limits. The
//     server is started through /bin/sh, which sets the soft limit with
//     `ulimit -S -n` and then execs tmux (UlimitCommand), so the PID is the
//     server's and the limit is in place before tmux runs. Raising our own
//     soft limit and letting the child inherit it was the alternative, and
//     was rejected: the limit is process-wide, a small test limit would
//     starve tmux-mcp itself, and the Go runtime restores the original
//     limit in children it starts unless the program calls setrlimit.

// softFDLimit returns the soft fd limit to give a server: limit, or hard
// when limit is 0, never above hard nor above ceiling (0: no ceiling).
func softFDLimit(limit, hard, ceiling uint64) uint64 {
	want := hard
	if limit != 0 {
		want = min(limit, hard)
	}
	if ceiling != 0 {
		want = min(want, ceiling)
	}
	return want
}

// ulimitScript is the /bin/sh program of UlimitCommand: $1 is the soft
// limit, $0 and the rest the command to exec.
const ulimitScript = `n=$1; shift; ulimit -S -n "$n" && exec "$0" "$@"`

// UlimitCommand rewrites cmd, not yet started, to run its program through
// /bin/sh with the soft fd limit set to n first. The shell execs the
// program, so the process keeps its PID, process group and environment;
// argv goes to the shell as arguments, never as script text, so nothing in
// it is interpreted. If the limit cannot be set the shell exits with an
// error instead of starting the program without it.
func UlimitCommand(cmd *exec.Cmd, n uint64) {
	args := append([]string{"/bin/sh", "-c", ulimitScript, cmd.Path, strconv.FormatUint(n, 10)}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = "/bin/sh", args
}
