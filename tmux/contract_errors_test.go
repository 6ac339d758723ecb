package tmux_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// The contract's failures, the same over both transports: tmux's errors
// classified, a server killed or its socket deleted, a socket another
// user could have made, and a deadline.

func TestContractErrors(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, _ := newClient(t, kind)
		tests := []struct {
			name string
			args []string
			want error
		}{
			{"missing pane", []string{"send-keys", "-t", "%999", "x"}, tmux.ErrPaneNotFound},
			{"missing window", []string{"kill-window", "-t", "@999"}, tmux.ErrWindowNotFound},
			{"missing session", []string{"kill-session", "-t", "=nope"}, tmux.ErrSessionNotFound},
			{"duplicate session", []string{"new-session", "-d", "-s", "main"}, tmux.ErrDuplicateSession},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := c.Run(ctx(t), tt.args...)
				if !errors.Is(err, tt.want) {
					t.Fatalf("got %v, want %v", err, tt.want)
				}
				var cerr *tmux.CommandError
				if !errors.As(err, &cerr) || cerr.Stderr == "" || cerr.Transport != kind {
					t.Errorf("got %#v, want a *CommandError with stderr from %s", err, kind)
				}
				if !errors.Is(err, tt.want) || (tt.want != tmux.ErrDuplicateSession && !errors.Is(err, tmux.ErrNotFound)) {
					t.Errorf("errors.Is(ErrNotFound) = false for %v", err)
				}
			})
		}
	})
}

func TestContractServerKilled(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, s := newClient(t, kind)
		pid := s.PID()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// Until the process is gone a client may still reach the dying
		// server ("server exited unexpectedly").
		tmuxtest.WaitFor(t, 2*time.Second, "server process gone", func() bool { return !tmuxtest.Alive(pid) })
		if ctrl := c.Control(); ctrl != nil || kind == "control" {
			// The control connection must notice on its own.
			tmuxtest.WaitFor(t, 2*time.Second, "control connection to notice", func() bool { return c.Control() == nil })
		}
		// Every answer is a server-down class; for a moment after the kill a
		// client may still be told "server exited unexpectedly", then the
		// stale socket must read as "no server running".
		var err error
		tmuxtest.WaitFor(t, 2*time.Second, "the stale socket to read as no server", func() bool {
			_, err = c.Run(ctx(t), "list-sessions")
			if !tmux.IsServerDown(err) {
				t.Fatalf("after kill -9: got %v, want a server-down error", err)
			}
			return errors.Is(err, tmux.ErrNoServer)
		})
		if got, want := tmux.ClassName(err), "no_server"; got != want {
			t.Errorf("class = %q, want %q", got, want)
		}
	})
}

func TestContractSocketDeleted(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, s := newClient(t, kind)
		if err := os.Remove(s.Socket); err != nil {
			t.Fatal(err)
		}
		// Over exec every command connects anew and finds no socket. An
		// established control connection keeps working: the server lives.
		_, err := c.Exec().Run(ctx(t), "list-sessions")
		if !errors.Is(err, tmux.ErrSocketMissing) {
			t.Fatalf("exec after rm socket: got %v, want ErrSocketMissing", err)
		}
		if kind == "control" {
			if _, err := c.Run(ctx(t), "list-sessions"); err != nil {
				t.Errorf("control after rm socket: %v, want the live connection to keep working", err)
			}
		}
		// Let cleanup find the server: SIGUSR1 recreates the socket.
		pid := tmuxtest.PIDOf(t, s)
		syscall.Kill(pid, syscall.SIGUSR1)
		tmuxtest.WaitFor(t, 2*time.Second, "socket recreated", func() bool { _, err := os.Stat(s.Socket); return err == nil })
	})
}

func TestContractPermission(t *testing.T) {
	if os.Geteuid() != 0 && false {
		t.Skip()
	}
	// A -L server in a private TMUX_TMPDIR whose tmux-UID directory is
	// opened to everyone: tmux refuses to use it.
	tmp, err := os.MkdirTemp("", "tmp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	e := &tmux.Exec{Socket: tmux.Socket{Name: "perm"}, Config: "/dev/null", Env: []string{"TMUX_TMPDIR=" + tmp}}
	if _, err := e.Run(ctx(t), "new-session", "-d", "-s", "p"); err != nil {
		t.Fatal(err)
	}
	pidOut, err := e.Run(ctx(t), "display-message", "-p", "#{pid}")
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(pidOut), &pid)
	t.Cleanup(func() {
		if pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	dir := filepath.Join(tmp, fmt.Sprintf("tmux-%d", os.Geteuid()))
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err = e.Run(ctx(t), "list-sessions")
	if !errors.Is(err, tmux.ErrPermission) {
		t.Fatalf("got %v, want ErrPermission", err)
	}
	if got, want := tmux.ClassName(err), "permission"; got != want {
		t.Errorf("class = %q, want %q", got, want)
	}
}

func TestContractTimeout(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, s := newClient(t, kind)
		pid := s.PID()
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
		short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.Run(short, "list-sessions")
		elapsed := time.Since(start)
		if !errors.Is(err, tmux.ErrTimeout) {
			t.Fatalf("got %v, want ErrTimeout", err)
		}
		if elapsed > 2*time.Second {
			t.Errorf("timed out after %v, want about 300ms", elapsed)
		}
		syscall.Kill(pid, syscall.SIGCONT)
		// After SIGCONT the server answers again. One caller's deadline
		// does not end a control connection: the request is abandoned and
		// the same connection carries the next command.
		if kind == "control" {
			if err := c.LastControlError(); err != nil {
				t.Fatalf("control connection ended by a timeout: %v", err)
			}
		}
		run(t, c, "list-sessions")
		if got := c.Transport().Kind(); got != kind {
			t.Errorf("transport after the timeout = %q, want %q", got, kind)
		}
	})
}
