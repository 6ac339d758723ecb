package supervisor

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestCallAfterSlowKillServer: a server that answered kill-server may take
// seconds to exit (it destroys its sessions first, and closing a pane's
// terminal took 1.6 s on a loaded machine; a run-shell job it waits for
// holds it the same way, which is how this test makes it slow). Kill
// returns once the server is gone, and a call made then starts the next
// server instead of reaching the dying one.
func TestCallAfterSlowKillServer(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{})
	rec := record(sup)
	srv := mustServer(t, sup)
	mustDo(t, srv, "new-session", "-d", "-s", "work")
	old := srv.Health().PID
	started := filepath.Join(t.TempDir(), "job-started")
	// A run-shell without -b is a job the exiting server waits for. It
	// outlives the 2 s Kill once waited at most.
	go ts.TmuxWithin(20*time.Second, "run-shell", "touch '"+started+"'; sleep 3") //nolint:errcheck // ends with the server
	tmuxtest.WaitFor(t, 10*time.Second, "the job to start", func() bool {
		_, err := os.Stat(started)
		return err == nil
	})
	if err := srv.Kill(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if proc.PIDAlive(old, 0) {
		t.Errorf("Kill returned while the killed server PID %d still runs", old)
	}
	t.Logf("events: %v", rec.types())
	out := mustDo(t, srv, "display-message", "-p", "#{pid}")
	if pid, _ := strconv.Atoi(out); pid <= 0 || pid == old {
		t.Errorf("the call after Kill was answered by PID %q; want a new server (the killed one was %d)", out, old)
	}
	if got := rec.count(func(e Event) bool { return e.Type == EventServerDied && e.Cause == death.CauseKillServer }); got != 1 {
		t.Errorf("%d kill_server deaths; want 1 (events: %v)", got, rec.types())
	}
}
