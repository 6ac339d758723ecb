package journal

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// buildSmallTree makes two sessions, one with two windows, through srv.
func buildSmallTree(t *testing.T, srv *supervisor.Server, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"new-session", "-d", "-s", "keep", "-c", dir, "-n", "one"},
		{"new-window", "-d", "-t", "=keep:", "-n", "two", "-c", dir},
		{"new-session", "-d", "-s", "also", "-c", dir, "-n", "three"}, // named: an automatic name follows the program running
	} {
		if _, err := srv.Replay(testCtx(t), args); err != nil {
			t.Fatalf("tmux %s: %v", strings.Join(args, " "), err)
		}
	}
}

// TestRestoreAfterLazyStart: the server dies while no tmux-mcp watches it
// (the process that journaled it has ended); the next process's first
// call starts a new server, the journal restores it, and a call that acts
// on the tree sees the whole of it (the supervisor's restore gate).
func TestRestoreAfterLazyStart(t *testing.T) {
	ts := tmuxtest.New(t)
	j, _ := mustOpen(t, "", nil)
	first := newSup(t, ts, supervisor.Config{Restorer: j})
	stop := j.Watch(first)
	srv, err := first.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	buildSmallTree(t, srv, t.TempDir())
	want := settledTree(t, srv)
	waitSnapshot(t, j, srv, want)
	pid := srv.Health().PID
	stop()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	tmuxtest.WaitFor(t, 5*time.Second, "the server to die", func() bool { return !tmuxtest.Alive(pid) })

	second := newSup(t, ts, supervisor.Config{Restorer: j})
	rec := record(second)
	t.Cleanup(j.Watch(second))
	srv, err = second.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	// A call that acts on the tree waits for the restore (listings do not).
	if err := srv.AwaitRestore(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	diffTree(t, "tree seen by the first call after the lazy start", settledTree(t, srv), want)
	// The gate opens before the event is announced (a subscriber may call
	// back), so the event can follow AwaitRestore by a moment.
	tmuxtest.WaitFor(t, 10*time.Second, "the restored event", func() bool { return rec.count(supervisor.EventRestored) > 0 })
	if e, _ := rec.last(supervisor.EventRestored); e.Detail != "" {
		t.Errorf("restored event = %+v, want one without error", e)
	}
}

// TestNoRestoreAfterKillServerLazyStart: after kill_server the next call
// starts a new server and the journal, asked to restore it, declines: the
// server ended on purpose.
func TestNoRestoreAfterKillServerLazyStart(t *testing.T) {
	ts := tmuxtest.New(t)
	j, _ := mustOpen(t, "", nil)
	sup := newSup(t, ts, supervisor.Config{Restorer: j})
	rec := record(sup)
	t.Cleanup(j.Watch(sup))
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	buildSmallTree(t, srv, t.TempDir())
	waitSnapshot(t, j, srv, settledTree(t, srv))
	if err := srv.Kill(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	flush(t, j)
	before := rec.count(supervisor.EventRestored)
	if got := liveTree(t, srv); len(got) != 0 {
		t.Errorf("after kill_server the next call sees %q; want an empty server", got)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the lazy start's restore to run and decline", func() bool {
		return rec.count(supervisor.EventRestored) == before+1
	})
	flush(t, j)
	records, err := j.Events(srv.Socket(), time.Time{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	declined := false
	for _, r := range records {
		declined = declined || r.Type == EventRestore && strings.Contains(r.Detail, "ended on purpose (kill_server)")
	}
	if !declined {
		t.Errorf("no journal event says the restore was declined")
	}
}
