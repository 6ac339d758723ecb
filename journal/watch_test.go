package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func mustDo(t *testing.T, srv *supervisor.Server, args ...string) string {
	t.Helper()
	out, err := srv.Replay(testCtx(t), args)
	if err != nil {
		t.Fatalf("tmux %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// TestWatchSnapshotsAfterChanges checks that structural changes are
// snapshotted after a short debounce without being asked, that the
// hidden session is left out, and that equal snapshots are not stored.
func TestWatchSnapshotsAfterChanges(t *testing.T) {
	ts := tmuxtest.New(t)
	// Interval and Refresh far away: only the changes themselves may
	// trigger the snapshots this test waits for.
	j, _ := mustOpen(t, "", &Options{Interval: time.Hour, Refresh: time.Hour})
	sup := newSup(t, ts, supervisor.Config{})
	t.Cleanup(j.Watch(sup))
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	latest := func() *Snapshot {
		s, err := j.Snapshot(srv.Socket(), 0)
		if err != nil {
			return nil
		}
		return s
	}
	mustDo(t, srv, "new-session", "-d", "-s", "work")
	tmuxtest.WaitFor(t, 10*time.Second, "a snapshot with session work", func() bool {
		s := latest()
		return s != nil && len(s.Sessions) == 1 && s.Sessions[0].Name == "work"
	})
	mustDo(t, srv, "new-window", "-d", "-t", "=work:", "-n", "second")
	mustDo(t, srv, "split-window", "-d", "-t", "=work:second")
	tmuxtest.WaitFor(t, 10*time.Second, "a snapshot with the new window and its split", func() bool {
		s := latest()
		return s != nil && len(s.Sessions[0].Windows) == 2 && len(s.Sessions[0].Windows[1].Panes) == 2
	})
	s := latest()
	for _, sess := range s.Sessions {
		if sess.Name == tmux.HiddenSession {
			t.Errorf("snapshot holds the hidden session %s", tmux.HiddenSession)
		}
	}
	if s.Server.PID != srv.Health().PID || s.Server.Version == "" || !strings.HasSuffix(s.Server.Socket, filepath.Base(ts.Socket)) ||
		!strings.Contains(s.Server.Binary, "tmux") {
		t.Errorf("server identity %+v, want PID %d, a version, the socket and the binary", s.Server, srv.Health().PID)
	}
	// New panes' shells may still be starting (their argv changes once);
	// then the tree stays as it is and snapshots of it are not stored.
	tmuxtest.WaitFor(t, 10*time.Second, "a snapshot equal to the latest, not stored", func() bool {
		stored, err := j.TakeSnapshot(testCtx(t), srv)
		if err != nil {
			t.Fatal(err)
		}
		return !stored
	})
	flush(t, j)
	records, _ := j.Events(srv.Socket(), time.Time{}, 0)
	var types []string
	for _, r := range records {
		types = append(types, string(r.Type))
	}
	for _, want := range []string{"server_started", "structure", "snapshot"} {
		if !slices.Contains(types, want) {
			t.Errorf("event log %v has no %s event", types, want)
		}
	}
	for _, r := range records {
		if r.Type == supervisor.EventCommand {
			t.Errorf("command events are logged (%v); they belong to telemetry", r)
			break
		}
	}
}

// TestSnapshotContent checks the per-pane content read from tmux and
// /proc: argv of what runs, whether it was started from the pane's shell,
// dead panes and their status.
func TestSnapshotContent(t *testing.T) {
	ts := tmuxtest.New(t)
	j, _ := mustOpen(t, "", nil)
	sup := newSup(t, ts, supervisor.Config{})
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	direct := mustDo(t, srv, "new-session", "-d", "-s", "c", "-P", "-F", "#{pane_id}", "--", "sleep", "1234")
	shell := mustDo(t, srv, "split-window", "-d", "-t", direct, "-P", "-F", "#{pane_id}")
	mustDo(t, srv, "send-keys", "-t", shell, "sleep 4321", "Enter")
	mustDo(t, srv, "set-option", "-g", "remain-on-exit", "on")
	dead := mustDo(t, srv, "split-window", "-d", "-t", direct, "-P", "-F", "#{pane_id}", "--", "sh", "-c", "exit 3")
	var s *Snapshot
	defer func() {
		if t.Failed() {
			t.Logf("last state: %+v", s)
		}
	}()
	// The direct pane's process may still be tmux's fork, not yet sleep
	// (a loaded machine, make stress): wait until it has exec'd too.
	tmuxtest.WaitFor(t, 10*time.Second, "the direct pane to run sleep, the shell to run sleep and the dead pane to die", func() bool {
		s, err = readState(testCtx(t), srv)
		if err != nil {
			t.Fatal(err)
		}
		dp := paneByID(s, tmux.PaneID(direct))
		p := paneByID(s, tmux.PaneID(shell))
		d := paneByID(s, tmux.PaneID(dead))
		return dp != nil && !dp.forking && p != nil && d != nil && slices.Equal(p.Argv, []string{"sleep", "4321"}) && d.Dead &&
			deadStatusAgrees(t, srv, d)
	})
	if p := paneByID(s, tmux.PaneID(direct)); !slices.Equal(p.Argv, []string{"sleep", "1234"}) || p.InShell || p.Command != "sleep" {
		t.Errorf("direct pane: argv %q in shell %v command %q, want [sleep 1234], false, sleep", p.Argv, p.InShell, p.Command)
	}
	if p := paneByID(s, tmux.PaneID(shell)); !p.InShell {
		t.Errorf("shell pane running sleep: in shell = false, want true")
	}

	if _, err := j.storeSnapshot(srv.Socket(), s); err != nil {
		t.Fatal(err)
	}
}

// deadStatusAgrees reports whether the snapshot's exit status of dead
// pane d is what tmux says it is. tmux 3.3a does not always learn the
// status of a dead pane, and learns it after marking the pane dead, so the
// snapshot is held to what tmux knows (asked again until both agree).
func deadStatusAgrees(t *testing.T, srv *supervisor.Server, d *Pane) bool {
	t.Helper()
	want := mustDo(t, srv, "display-message", "-p", "-t", string(d.ID), "#{pane_dead_status}")
	return fmt.Sprint(d.DeadStatus) == want || want == "" && d.DeadStatus == 0
}

func paneByID(s *Snapshot, id tmux.PaneID) *Pane {
	for i := range s.Sessions {
		for j := range s.Sessions[i].Windows {
			for k := range s.Sessions[i].Windows[j].Panes {
				if p := &s.Sessions[i].Windows[j].Panes[k]; p.ID == id {
					return p
				}
			}
		}
	}
	return nil
}

// TestWatchNeverStartsAServer checks that a server killed on request stays
// down when snapshots fall due.
func TestWatchNeverStartsAServer(t *testing.T) {
	ts := tmuxtest.New(t)
	j, _ := mustOpen(t, "", &Options{Refresh: time.Nanosecond})
	sup := newSup(t, ts, supervisor.Config{})
	rec := record(sup)
	t.Cleanup(j.Watch(sup))
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, srv, "new-session", "-d", "-s", "x")
	if err := srv.Kill(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	// What the watcher does on its timers: every server is due (Refresh
	// is a nanosecond), none is up.
	for range 3 {
		j.snapshotDue(testCtx(t), sup, true)
		j.markDirty(socketKey(srv.Socket()))
	}
	if n := rec.count(supervisor.EventServerStarted); n != 1 {
		t.Errorf("servers started = %d, want 1 (the watcher must not start one)", n)
	}
	if pid := ts.PID(); pid != 0 {
		t.Errorf("a server answers on the socket (PID %d), want none", pid)
	}
}

// TestReadAcrossExec: a pane tmux named for its fork (the server's binary)
// while /proc already shows another binary was read across the exec; one
// whose binary has the server's name (a tmux client in a pane) was not.
func TestReadAcrossExec(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, _ = filepath.EvalSymlinks(self)
	pid := os.Getpid()
	for _, tc := range []struct {
		name    string
		command string
		bin     string
		want    bool
	}{
		{"named tmux, runs another binary", "tmux", "/opt/tmux/bin/tmux", true},
		{"named tmux, runs a binary named so", filepath.Base(self), self, false},
		{"named for its own command", "sleep", "/opt/tmux/bin/tmux", false},
		{"no server binary known", "tmux", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Pane{PID: pid, Command: tc.command}
			if got := readAcrossExec(p, tc.bin); got != tc.want {
				t.Errorf("readAcrossExec(command %q, bin %q) = %v, want %v", tc.command, tc.bin, got, tc.want)
			}
		})
	}
}
