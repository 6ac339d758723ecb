package capture

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestFIFOReleaseBeforeTheReaderOpens: a pipe feed that gives up (the
// pipe-pane command failed, or its cat never came) releases its reading
// end's open even when that open starts only after the release began.
// Under load the opening goroutine ran late, the release's writer came and
// went before it, and the open waited for good with the feeds' lock held,
// so that server_health and every later subscriber hung (the soak smoke on
// 3.2a, beside six busy loops).
func TestFIFOReleaseBeforeTheReaderOpens(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/fd")
	}
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	// The reader as openFIFO makes it, but its open is started by hand,
	// after the release holds its writer.
	r := &fifoReader{path: path, opened: make(chan *os.File, 1)}
	released := make(chan *os.File, 1)
	go func() { released <- r.release() }()
	deadline := time.Now().Add(10 * time.Second)
	for !holdsOpen(t, path) {
		select {
		case f := <-released:
			t.Fatalf("release returned %v before any reader opened", f)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("release holds no writer open on the FIFO: a reader's open that starts now would wait for good")
		}
		runtime.Gosched()
	}
	go func() {
		f, err := os.OpenFile(path, os.O_RDONLY, 0)
		if err != nil {
			f = nil
		}
		r.opened <- f
	}()
	select {
	case f := <-released:
		if f == nil {
			t.Fatal("release returned no reading end")
		}
		f.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("the reader's open did not return after the release")
	}
}

// holdsOpen reports whether this process has path open.
func holdsOpen(t *testing.T, path string) bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}
