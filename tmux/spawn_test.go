package tmux_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestContractSpawnFailed exhausts PTYs for real: the server runs in its own
// mount namespace with a private devpts that allows four PTYs, so the fifth
// pane fails with "fork failed: No space left on device" while the server
// stays up. It needs root (unshare -m); elsewhere it is skipped.
func TestContractSpawnFailed(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	dir, err := os.MkdirTemp("", "pty")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	script := `mount -t devpts -o newinstance,ptmxmode=0666,max=4 devpts /dev/pts &&
mount --bind /dev/pts/ptmx /dev/ptmx &&
exec tmux -S "$1" -f /dev/null -D`
	cmd := exec.Command("unshare", "-m", "sh", "-c", script, "sh", sock)
	cmd.Env = tmuxtest.Env()
	if err := cmd.Start(); err != nil {
		t.Skipf("unshare: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	e := &tmux.Exec{Socket: tmux.Socket{Path: sock}}
	up := false
	for deadline := time.Now().Add(3 * time.Second); !up && time.Now().Before(deadline); {
		select {
		case err := <-exited:
			t.Skipf("no private devpts here (needs root and mount namespaces): %v", err)
		default:
		}
		_, err := e.Run(ctx(t), "list-sessions")
		up = err == nil
		time.Sleep(10 * time.Millisecond) // poll: the socket appears once the server has bound it
	}
	if !up {
		t.Fatal("server in the private namespace never answered")
	}
	if _, err := e.Run(ctx(t), "new-session", "-d", "-s", "a", "exec cat"); err != nil {
		t.Fatal(err)
	}
	var spawnErr error
	for i := 0; i < 8 && spawnErr == nil; i++ {
		_, spawnErr = e.Run(ctx(t), "new-window", "-d", "exec cat")
	}
	if !errors.Is(spawnErr, tmux.ErrSpawnFailed) {
		t.Fatalf("got %v, want ErrSpawnFailed after exhausting 4 PTYs", spawnErr)
	}
	if got, want := tmux.ClassName(spawnErr), "spawn_failed"; got != want {
		t.Errorf("class = %q, want %q", got, want)
	}
	t.Logf("spawn failure: %v", spawnErr)
	// The server survives PTY exhaustion.
	if _, err := e.Run(ctx(t), "list-sessions"); err != nil {
		t.Errorf("server after spawn failure: %v, want it alive", err)
	}
}
