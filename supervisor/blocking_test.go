package supervisor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestDoBlockingLeavesTheControlConnectionFree(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{})
	rec := record(sup)
	srv := mustServer(t, sup)
	mustDo(t, srv, "new-session", "-d", "-s", "w")

	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err := srv.doBlocking(ctx, "wait-for", "tmux-mcp-test-chan")
		done <- err
	}()
	tmuxtest.WaitFor(t, 5*time.Second, "the wait-for client to block", func() bool {
		return len(srv.blocking) == 1
	})
	// While the client waits inside tmux, control-mode commands still run.
	for i := 0; i < 20; i++ {
		mustDo(t, srv, "display-message", "-p", "#{pid}")
	}
	select {
	case err := <-done:
		t.Fatalf("wait-for returned before it was signalled: %v", err)
	default:
	}
	mustDo(t, srv, "wait-for", "-S", "tmux-mcp-test-chan")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("signalled wait-for: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("wait-for not released by its signal")
	}
	e := rec.wait(t, time.Second, "the wait-for command", func(e Event) bool {
		return e.Type == EventCommand && e.Command == "wait-for" && e.Transport == "exec"
	})
	if e.ErrClass != "" {
		t.Errorf("wait-for error class = %q, want none", e.ErrClass)
	}
}

func TestDoBlockingEndsAtTheCallersDeadline(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{})
	rec := record(sup)
	srv := mustServer(t, sup)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := srv.doBlocking(ctx, "wait-for", "never-signalled")
	if !errors.Is(err, tmux.ErrTimeout) {
		t.Fatalf("got %v, want ErrTimeout", err)
	}
	// A wait that ran out leaves the server up and answering.
	mustDo(t, srv, "list-sessions")
	if got := srv.State(); got != StateUp {
		t.Errorf("state = %s, want up", got)
	}
	if n := rec.count(isType(EventServerDied)); n != 0 {
		t.Errorf("server_died events = %d, want 0", n)
	}
	if _, err := srv.doBlocking(context.Background(), "wait-for", "x"); !errors.Is(err, ErrNoDeadline) {
		t.Errorf("no deadline: got %v, want ErrNoDeadline", err)
	}
}

// TestAliveNeverStartsAServer checks that Alive reports the running
// server's PID, and after the server is gone an error that says so,
// without starting a new server (as a call through the gate would).
func TestAliveNeverStartsAServer(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("w")
	sup := newSup(t, ts, Config{})
	srv := mustServer(t, sup)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := srv.Alive(ctx)
	if err != nil || got != pid {
		t.Fatalf("Alive = %d, %v; want %d", got, err, pid)
	}
	ts.MustTmux("kill-server")
	// Once the supervisor knows, the next call through the health gate
	// would start a server: Alive must not.
	tmuxtest.WaitFor(t, 5*time.Second, "the supervisor to see the death", func() bool { return srv.State() == StateDown })
	if got, err := srv.Alive(ctx); !tmux.IsServerDown(err) {
		t.Errorf("Alive after kill-server = %d, %v; want a server-down error", got, err)
	}
	if p := ts.PID(); p != 0 {
		t.Errorf("a server with pid %d answers after Alive; want none started", p)
	}
}
