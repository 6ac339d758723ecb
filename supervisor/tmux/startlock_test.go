package tmux

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
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
