package tmux

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestStartLockHeldUntilRelease: a server StartServer started keeps the
// socket's start lock until its starter releases it (after restoring it),
// so a second start on the socket waits, and then finds the server
// running. Attaching while the starter restores can crash tmux before 3.7.
func TestStartLockHeldUntilRelease(t *testing.T) {
	ts := tmuxtest.New(t)
	e := &Exec{Socket: Socket{Path: ts.Socket}, Config: "/dev/null"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := e.StartServer(ctx, StartOptions{})
	if err != nil {
		t.Fatalf("StartServer: %v", err)
	}
	ts.Track(s.PID)
	t.Cleanup(s.Release)

	short, cancelShort := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancelShort()
	if _, err := e.StartServer(short, StartOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second StartServer before Release: %v, want it to wait for the lock until its deadline", err)
	}
	s.Release()
	s.Release() // a second Release is harmless
	if _, err := e.StartServer(ctx, StartOptions{}); !errors.Is(err, ErrServerRunning) {
		t.Fatalf("second StartServer after Release: %v, want ErrServerRunning", err)
	}
}

// TestStartLockLeavesNothing: the start lock's file lives beside the
// socket, in the directory a person looks in, only while it is held: after
// Release, after a start that found a server running, and once the server
// has ended, the directory holds nothing but tmux's socket.
func TestStartLockLeavesNothing(t *testing.T) {
	ts := tmuxtest.New(t)
	e := &Exec{Socket: Socket{Path: ts.Socket}, Config: "/dev/null"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := e.StartServer(ctx, StartOptions{})
	if err != nil {
		t.Fatalf("StartServer: %v", err)
	}
	ts.Track(s.PID)
	lock := ts.Socket + startLockSuffix
	if _, err := os.Lstat(lock); err != nil {
		t.Fatalf("while the starter holds it, the lock file: %v, want it there", err)
	}
	s.Release()
	if got, want := dirNames(t, filepath.Dir(ts.Socket)), []string{filepath.Base(ts.Socket)}; !slices.Equal(got, want) {
		t.Errorf("after Release the socket directory holds %q, want %q", got, want)
	}
	if _, err := e.StartServer(ctx, StartOptions{}); !errors.Is(err, ErrServerRunning) {
		t.Fatalf("StartServer on a running server: %v, want ErrServerRunning", err)
	}
	if got, want := dirNames(t, filepath.Dir(ts.Socket)), []string{filepath.Base(ts.Socket)}; !slices.Equal(got, want) {
		t.Errorf("after a start that found the server running the socket directory holds %q, want %q", got, want)
	}
	if _, err := e.Run(ctx, "kill-server"); err != nil && !IsServerDown(err) {
		t.Fatalf("kill-server: %v", err)
	}
	<-s.Done()
	// tmux leaves its socket behind (it unlinks a socket only before
	// binding one): that is tmux's, and nothing else may be there.
	if got := slices.DeleteFunc(dirNames(t, filepath.Dir(ts.Socket)), func(n string) bool { return n == filepath.Base(ts.Socket) }); len(got) != 0 {
		t.Errorf("after the server ended the socket directory holds %q besides tmux's socket, want nothing", got)
	}
}

// TestStartLockOneStarter: starters that race on one socket, while each
// removes the lock file as it lets go, start one server between them;
// every other finds it running.
func TestStartLockOneStarter(t *testing.T) {
	ts := tmuxtest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const n = 8
	var wg sync.WaitGroup
	started := make(chan *StartedServer, n)
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := &Exec{Socket: Socket{Path: ts.Socket}, Config: "/dev/null"}
			s, err := e.StartServer(ctx, StartOptions{})
			if err != nil {
				errs <- err
				return
			}
			ts.Track(s.PID)
			started <- s
			s.Release()
		}()
	}
	wg.Wait()
	close(started)
	close(errs)
	if got := len(started); got != 1 {
		t.Errorf("%d servers started, want 1", got)
	}
	for err := range errs {
		if !errors.Is(err, ErrServerRunning) {
			t.Errorf("a starter that lost: %v, want ErrServerRunning", err)
		}
	}
	if _, err := os.Lstat(ts.Socket + startLockSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after every starter let go: %v, want it gone", err)
	}
}

// dirNames lists dir's entries by name, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
