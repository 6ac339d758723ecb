package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLockWaitGivesUpAndLetsGo: a wait that outlives its deadline returns
// ErrLocked, and the goroutine left waiting takes the lock when its holder
// lets go and gives it back at once: the next open gets it.
func TestLockWaitGivesUpAndLetsGo(t *testing.T) {
	path, holder := heldLock(t)
	var w Waits
	if _, err := w.Open(path, os.O_RDONLY, 0, time.Now().Add(50*time.Millisecond)); !errors.Is(err, ErrLocked) {
		t.Fatalf("open while another holds the lock: %v, want ErrLocked", err)
	}
	if got := w.abandoned.Load(); got != 1 {
		t.Errorf("abandoned waits = %d, want 1", got)
	}
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	// The abandoned waiter gets the lock, gives it back and closes its file.
	deadline := time.Now().Add(10 * time.Second)
	for w.abandoned.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the abandoned waiter never let go")
		}
		time.Sleep(time.Millisecond)
	}
	f, err := w.Open(path, os.O_RDWR, 0, time.Now().Add(5*time.Second))
	if err != nil {
		t.Fatalf("open after the holder let go: %v", err)
	}
	f.Close()
}

// TestLockWaitWokenAtRelease: a waiter blocked behind a holder gets the
// lock when the holder lets go, long before its deadline.
func TestLockWaitWokenAtRelease(t *testing.T) {
	path, holder := heldLock(t)
	var w Waits
	got := make(chan error, 1)
	go func() {
		f, err := w.Open(path, os.O_RDONLY, 0, time.Now().Add(time.Minute))
		if err == nil {
			f.Close()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("open returned %v while the lock was held", err)
	case <-time.After(20 * time.Millisecond):
	}
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Errorf("open after release: %v", err)
	}
}

// heldLock creates a file and takes its exclusive lock through a handle of
// its own (flock is per open file, so this process's next open waits for
// it), returning the path and that handle.
func heldLock(t *testing.T) (string, *os.File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	holder, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Close() })
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return path, holder
}
