package proc

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestListenerPIDsLeavesOutForks: a server's child between fork and exec
// (tmux forks one per pane) holds the server's listening socket. It is not
// a second server: ListenerPIDs lists the server alone. Here this test
// process is the server and a child it starts with the socket inherited
// is the fork. (Under load the fork window is long enough for a scan to
// see it: ListenerPIDs(two servers) once listed three PIDs.)
func TestListenerPIDsLeavesOutForks(t *testing.T) {
	dir, err := os.MkdirTemp("", "lsn")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	f, err := l.File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	child := exec.Command("sleep", "60")
	child.ExtraFiles = []*os.File{f}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() }) //nolint:errcheck
	// The child holds the socket once it runs.
	tmuxtest.WaitFor(t, 5*time.Second, "the child to hold the socket", func() bool {
		link, _ := os.Readlink(filepath.Join("/proc", itoa(child.Process.Pid), "fd", "3"))
		return len(link) > 0
	})
	if got, want := ListenerPIDs(path), []int{os.Getpid()}; !slices.Equal(got, want) {
		t.Errorf("ListenerPIDs = %v, want %v (the fork left out)", got, want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
