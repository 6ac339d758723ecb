package tmux

import (
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestCheckSocketWhileReplaced: a tmux that starts a server unlinks the
// stale socket and binds its own a moment later. A check that runs
// meanwhile must find the path there or not there, never refuse it: a
// refusal read as the new server's answer made tmux-mcp connect before
// the server had bound (ENOENT from a server it had just started).
func TestCheckSocketWhileReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Remove(path) //nolint:errcheck // absent on the first round
			l, err := net.Listen("unix", path)
			if err != nil {
				t.Error(err)
				return
			}
			l.(*net.UnixListener).SetUnlinkOnClose(false)
			l.Close()
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	for range 20000 {
		if err := CheckSocket(path); err != nil {
			t.Fatalf("CheckSocket while the socket is replaced = %v, want nil", err)
		}
	}
}
