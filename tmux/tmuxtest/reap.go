package tmuxtest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Reap registers, for the end of the test, the end of the processes below
// pid (a pane's process: a program and its children), waiting until they
// are gone: killing the tmux server only hangs the pane up, and a program
// still writing to a directory of the test's would make that directory's
// removal fail. Call it after t.TempDir made the directory, so that it
// runs before the removal. It
// sends SIGTERM, and SIGKILL to what is left after ten seconds.
func Reap(t testing.TB, pid int) {
	t.Helper()
	t.Cleanup(func() {
		procs := below(pid)
		for _, p := range procs {
			syscall.Kill(p, syscall.SIGTERM) //nolint:errcheck // it may be gone
		}
		deadline := time.Now().Add(10 * time.Second)
		for _, p := range procs {
			for Alive(p) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if Alive(p) {
				syscall.Kill(p, syscall.SIGKILL) //nolint:errcheck
			}
		}
	})
}

// below returns the processes below pid, from Linux's children files
// (none elsewhere).
func below(pid int) []int {
	var out []int
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	if err != nil {
		return nil
	}
	for _, f := range strings.Fields(string(b)) {
		if c, err := strconv.Atoi(f); err == nil {
			out = append(out, c)
			out = append(out, below(c)...)
		}
	}
	return out
}
