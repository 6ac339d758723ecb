package supervisor

import (
	"context"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
)

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
