package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// treeSpec describes the test tree: 3 sessions, 7 windows, 15 panes.
type treeWindow struct {
	name   string
	panes  int
	layout string // applied after the splits
	resize bool   // then resize the first pane, for a layout no preset makes
	active int    // index of the active pane
	zoom   bool
}

var treeSpec = []struct {
	name         string
	width        int
	height       int
	activeWindow int
	windows      []treeWindow
}{
	{"alpha", 160, 48, 1, []treeWindow{
		{name: "edit", panes: 3, layout: "main-vertical", resize: true, active: 2},
		{name: "build", panes: 2, layout: "even-vertical", active: 1, zoom: true},
		{name: "logs", panes: 1},
	}},
	{"beta", 200, 50, 0, []treeWindow{
		{name: "srv", panes: 4, layout: "tiled", active: 3},
		{name: "db", panes: 1},
	}},
	{"gamma", 120, 40, 1, []treeWindow{
		{name: "notes", panes: 2, layout: "even-horizontal", resize: true},
		{name: "misc", panes: 2, layout: "main-horizontal", active: 1, zoom: true},
	}},
}

// buildTree makes the test tree on srv through the supervisor, each pane
// in a directory of its own under root with a title of its own.
func buildTree(t testing.TB, srv *supervisor.Server, root string) {
	t.Helper()
	ctx := testCtx(t)
	do := func(args ...string) string {
		t.Helper()
		out, err := srv.Replay(ctx, args)
		if err != nil {
			t.Fatalf("tmux %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	n := 0
	dir := func() string {
		n++
		d := filepath.Join(root, fmt.Sprintf("pane dir %02d", n))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, s := range treeSpec {
		var windowIDs []string
		for wi, w := range s.windows {
			var wid, first string
			if wi == 0 {
				out := do("new-session", "-d", "-s", s.name, "-x", fmt.Sprint(s.width), "-y", fmt.Sprint(s.height),
					"-n", w.name, "-c", dir(), "-P", "-F", "#{window_id} #{pane_id}")
				wid, first, _ = strings.Cut(out, " ")
			} else {
				out := do("new-window", "-d", "-t", "="+s.name+":", "-n", w.name, "-c", dir(), "-P", "-F", "#{window_id} #{pane_id}")
				wid, first, _ = strings.Cut(out, " ")
			}
			windowIDs = append(windowIDs, wid)
			panes := []string{first}
			for range w.panes - 1 {
				panes = append(panes, do("split-window", "-d", "-t", panes[len(panes)-1], "-c", dir(), "-P", "-F", "#{pane_id}"))
			}
			if w.layout != "" {
				do("select-layout", "-t", wid, w.layout)
			}
			if w.resize {
				do("resize-pane", "-t", panes[0], "-x", "33")
			}
			for i, p := range panes {
				do("select-pane", "-t", p, "-T", fmt.Sprintf("%s/%s/%d", s.name, w.name, i))
			}
			do("select-pane", "-t", panes[w.active])
			if w.zoom {
				do("resize-pane", "-Z", "-t", panes[w.active])
			}
		}
		do("select-window", "-t", windowIDs[s.activeWindow])
	}
}

var paneNumber = regexp.MustCompile(`(\d+x\d+,\d+,\d+),\d+`)

// normLayout drops what differs between servers in a layout string: the
// checksum and the pane numbers.
func normLayout(l string) string {
	_, rest, _ := strings.Cut(l, ",")
	return paneNumber.ReplaceAllString(rest, "$1")
}

// treeOf renders what a restore must reproduce, one line per object:
// names, window order, pane count per window, directories, layouts,
// titles, active and zoom flags.
func treeOf(s *Snapshot) []string {
	var out []string
	for _, sess := range s.Sessions {
		out = append(out, fmt.Sprintf("session %s %dx%d", sess.Name, sess.Width, sess.Height))
		for _, w := range sortedWindows(sess.Windows) {
			out = append(out, fmt.Sprintf("window %s:%d %s panes=%d active=%v zoomed=%v layout=%s",
				sess.Name, w.Index, w.Name, len(w.Panes), w.Active, w.Zoomed, normLayout(w.Layout)))
			for _, p := range sortedPanes(w.Panes) {
				out = append(out, fmt.Sprintf("pane %s:%d.%d path=%s title=%s active=%v",
					sess.Name, w.Index, p.Index, p.Path, p.Title, p.Active))
			}
		}
	}
	return out
}

func liveTree(t testing.TB, srv *supervisor.Server) []string {
	t.Helper()
	live, err := readState(testCtx(t), srv)
	if err != nil {
		t.Fatalf("read live state: %v", err)
	}
	return treeOf(live)
}

// settledTree is liveTree once every pane has settled as the journal
// judges it (Snapshot.settledAfter): each live pane had started (a
// directory, and no longer the server's binary) in the read before. Right
// after split-window the new pane's process may not own its terminal yet
// (tmux reads its path as ""), and until it has exec'd its directory may
// still be the server's.
func settledTree(t testing.TB, srv *supervisor.Server) []string {
	t.Helper()
	var tree []string
	var before map[tmux.PaneID]bool
	// A window named after its process is called "tmux" until the fork
	// has exec'd (automatic-rename).
	tmuxtest.WaitFor(t, 10*time.Second, "every pane's path and process", func() bool {
		live, err := readState(testCtx(t), srv)
		if err != nil {
			t.Fatalf("read live state: %v", err)
		}
		settled := live.settledAfter(before)
		before = live.started()
		tree = treeOf(live)
		return settled && !slices.ContainsFunc(tree, func(l string) bool {
			return strings.HasPrefix(l, "window ") && strings.Contains(l, " tmux panes=")
		})
	})
	return tree
}

// waitSnapshot waits until the latest snapshot of srv shows want.
func waitSnapshot(t testing.TB, j *Journal, srv *supervisor.Server, want []string) *Snapshot {
	t.Helper()
	var snap *Snapshot
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := j.Snapshot(srv.Socket(), 0)
		if err == nil && slices.Equal(treeOf(s), want) {
			return s
		}
		if err == nil {
			snap = s
		}
		if time.Now().After(deadline) {
			var got []string
			if snap != nil {
				got = treeOf(snap)
			}
			t.Fatalf("timed out after 10s waiting for a snapshot of the whole tree (last error %v)\nlatest snapshot:\n  %s\nlive now:\n  %s\nwant:\n  %s",
				err, strings.Join(got, "\n  "), strings.Join(liveTree(t, srv), "\n  "), strings.Join(want, "\n  "))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func diffTree(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	t.Errorf("%s:\ngot:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
}

// TestRestoreAfterKill9 builds a tree of 3 sessions, 7 windows and 15
// panes, kills the server with SIGKILL and checks that the restored tree
// equals the snapshot field by field, that old IDs resolve to the panes
// that replaced them, and that a second restore changes nothing.
func TestRestoreAfterKill9(t *testing.T) {
	for _, execOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("execOnly=%v", execOnly), func(t *testing.T) {
			ts := tmuxtest.New(t)
			j, logs := mustOpen(t, "", nil)
			sup := newSup(t, ts, supervisor.Config{ExecOnly: execOnly, Restorer: j})
			rec := record(sup)
			stop := j.Watch(sup)
			t.Cleanup(stop)
			srv, err := sup.Default(testCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			buildTree(t, srv, t.TempDir())
			t.Logf("built in %v", time.Since(t0))
			want := settledTree(t, srv)
			if n := strings.Count(strings.Join(want, "\n"), "\npane "); n != 15 {
				t.Fatalf("test tree has %d panes, want 15:\n%s", n, strings.Join(want, "\n"))
			}
			before := waitSnapshot(t, j, srv, want)
			t.Logf("snapshot after %v", time.Since(t0))

			// The first call's server was restored too (from nothing).
			restores := rec.count(supervisor.EventRestored)
			if err := syscall.Kill(srv.Health().PID, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			tmuxtest.WaitFor(t, 15*time.Second, "the restore", func() bool { return rec.count(supervisor.EventRestored) > restores })
			if e, _ := rec.last(supervisor.EventRestored); e.Detail != "" {
				t.Errorf("restore reported %q, want no error", e.Detail)
			}
			t.Logf("restored after %v", time.Since(t0))
			diffTree(t, "restored tree", settledTree(t, srv), want)

			// Old IDs resolve to the objects that replaced them.
			live, _ := readState(testCtx(t), srv)
			byID := map[string]string{}
			for _, line := range livePanes(live) {
				byID[line[0]] = line[1]
			}
			for _, old := range livePanes(before) {
				newID, ok := j.Resolve(srv.Socket(), old[0])
				if !ok {
					t.Errorf("Resolve(%s) found nothing", old[0])
					continue
				}
				if byID[newID] != old[1] {
					t.Errorf("Resolve(%s) = %s, which is %q; want the pane that was %q", old[0], newID, byID[newID], old[1])
				}
			}

			// A second restore finds everything in place.
			res, err := j.RestoreSnapshot(testCtx(t), srv, RestoreRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Steps) != 0 || res.Snapshot != before.Seq {
				t.Errorf("second restore from snapshot %d: steps %q, want none from snapshot %d", res.Snapshot, res.Steps, before.Seq)
			}
			diffTree(t, "tree after a second restore", settledTree(t, srv), want)
			if strings.Contains(logs.String(), "level=WARN") {
				t.Errorf("warnings logged:\n%s", logs.String())
			}
		})
	}
}

// livePanes returns [id, "path|title"] for every pane of s.
func livePanes(s *Snapshot) [][2]string {
	var out [][2]string
	for _, sess := range s.Sessions {
		for _, w := range sess.Windows {
			for _, p := range w.Panes {
				out = append(out, [2]string{string(p.ID), p.Path + "|" + p.Title})
			}
		}
	}
	return out
}

// TestRestoreReRunsOptedInCommand checks the per-pane opt-in: a pane that
// tmux-mcp created with the restore flag gets its argv, directory and
// environment back; a pane without it gets a shell.
func TestRestoreReRunsOptedInCommand(t *testing.T) {
	ts := tmuxtest.New(t)
	j, _ := mustOpen(t, "", nil)
	sup := newSup(t, ts, supervisor.Config{Restorer: j})
	rec := record(sup)
	t.Cleanup(j.Watch(sup))
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	argv := []string{"sh", "-c", `echo "token=$RESTORE_TOKEN"; exec sleep 1000`}
	env := []string{"RESTORE_TOKEN=t0k3n"}
	out, err := srv.Replay(testCtx(t), append([]string{"new-session", "-d", "-s", "job", "-c", dir, "-e", env[0], "-P", "-F", "#{pane_id}", "--"}, argv...))
	if err != nil {
		t.Fatal(err)
	}
	job := strings.TrimSpace(string(out))
	j.RecordCreated(srv.Socket(), tmux.PaneID(job), argv, dir, env, true)
	if _, err := srv.Replay(testCtx(t), []string{"new-window", "-d", "-t", "=job:", "-n", "plain", "--", "sleep", "1000"}); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "a snapshot with the created record", func() bool {
		s, err := j.Snapshot(srv.Socket(), 0)
		return err == nil && len(s.Sessions) == 1 && len(s.Sessions[0].Windows) == 2 &&
			s.Sessions[0].Windows[0].Panes[0].Created != nil
	})
	restores := rec.count(supervisor.EventRestored)
	syscall.Kill(srv.Health().PID, syscall.SIGKILL)
	tmuxtest.WaitFor(t, 15*time.Second, "the restore", func() bool { return rec.count(supervisor.EventRestored) > restores })
	var first, second string
	tmuxtest.WaitFor(t, 5*time.Second, "the command to run again", func() bool {
		o, err := srv.Replay(testCtx(t), []string{"list-panes", "-a", "-F", "#{window_name}:#{pane_current_command}:#{pane_current_path}"})
		if err != nil {
			return false
		}
		lines := strings.Split(strings.TrimSpace(string(o)), "\n")
		lines = slices.DeleteFunc(lines, func(l string) bool { return strings.Contains(l, "tail") })
		if len(lines) != 2 {
			return false
		}
		first, second = lines[0], lines[1]
		return strings.Contains(first, ":sleep:")
	})
	if want := ":sleep:" + dir; !strings.HasSuffix(first, want) {
		t.Errorf("opted-in pane = %q, want it running sleep in %s", first, dir)
	}
	if strings.Contains(second, ":sleep:") {
		t.Errorf("pane without the restore flag = %q, want a shell, not its command again", second)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the environment in the restored pane", func() bool {
		o, err := srv.Replay(testCtx(t), []string{"capture-pane", "-p", "-t", "=job:0.0"})
		return err == nil && strings.Contains(string(o), "token=t0k3n")
	})
}

// TestNoRestoreAfterKillServer checks that a server ended on purpose is not
// brought back by Restore, while an explicit RestoreSnapshot still can.
func TestNoRestoreAfterKillServer(t *testing.T) {
	ts := tmuxtest.New(t)
	j, _ := mustOpen(t, "", nil)
	sup := newSup(t, ts, supervisor.Config{})
	t.Cleanup(j.Watch(sup))
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Replay(testCtx(t), []string{"new-session", "-d", "-s", "gone"}); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "a snapshot", func() bool {
		s, err := j.Snapshot(srv.Socket(), 0)
		return err == nil && len(s.Sessions) == 1
	})
	if err := srv.Kill(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	flush(t, j)
	// The next call starts a new, empty server; an automatic restore of it
	// must leave it empty.
	if err := j.Restore(testCtx(t), srv); err != nil {
		t.Fatal(err)
	}
	if got := liveTree(t, srv); len(got) != 0 {
		t.Errorf("after kill_server, Restore made %q; want nothing", got)
	}
	res, err := j.RestoreSnapshot(testCtx(t), srv, RestoreRequest{})
	if err != nil || res.Applied == 0 {
		t.Fatalf("RestoreSnapshot = %+v, %v; want the session back on request", res, err)
	}
	if got := liveTree(t, srv); len(got) == 0 || !strings.HasPrefix(got[0], "session gone ") {
		t.Errorf("after RestoreSnapshot: %q, want session gone", got)
	}
}

// TestOneRestoreAtATime checks that a restore is refused while another
// live process holds the server's restore marker, and goes ahead when the
// marker's process is gone.
func TestOneRestoreAtATime(t *testing.T) {
	ts := tmuxtest.New(t)
	j, _ := mustOpen(t, "", nil)
	sup := newSup(t, ts, supervisor.Config{})
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, srv, "new-session", "-d", "-s", "keep")
	if _, err := j.TakeSnapshot(testCtx(t), srv); err != nil {
		t.Fatal(err)
	}
	mustDo(t, srv, "kill-session", "-t", "=keep")
	live, err := readState(testCtx(t), srv)
	if err != nil {
		t.Fatal(err)
	}
	setMarker := func(proc int) {
		t.Helper()
		err := j.update(func(tx *bolt.Tx) error {
			b, err := serverBucket(tx, socketKey(srv.Socket()), srv.Socket())
			if err != nil {
				return err
			}
			info := readInfo(b)
			info.Restoring = &restoring{Instance: live.Server.Instance(), Since: time.Now(), Proc: proc}
			return writeInfo(b, info)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	setMarker(os.Getppid()) // alive, and not this process
	if _, err := j.RestoreSnapshot(testCtx(t), srv, RestoreRequest{Snapshot: 1}); !errors.Is(err, ErrRestoreRunning) {
		t.Fatalf("restore while another process restores = %v, want ErrRestoreRunning", err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	setMarker(gone.Process.Pid) // its process has exited
	res, err := j.RestoreSnapshot(testCtx(t), srv, RestoreRequest{Snapshot: 1})
	if err != nil || res.Applied == 0 {
		t.Fatalf("restore after the marker's process died = %+v, %v; want it applied", res, err)
	}
	if got := liveTree(t, srv); len(got) == 0 || !strings.HasPrefix(got[0], "session keep ") {
		t.Errorf("tree after restore = %q, want session keep", got)
	}
}

// TestApplyStopsWhenCancelled checks that a restore whose deadline passed
// stops instead of failing every step that is left.
func TestApplyStopsWhenCancelled(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, supervisor.Config{})
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	live, err := readState(testCtx(t), srv)
	if err != nil {
		t.Fatal(err)
	}
	plan := Plan(testSnap(), live, nil, PlanOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ex := apply(ctx, srv, plan)
	if ex.applied != 0 || len(ex.errors) != 1 || !strings.Contains(ex.errors[0], "cut short after 0 of") {
		t.Errorf("apply after cancel: %d applied, errors %q; want none applied and one error", ex.applied, ex.errors)
	}
	if got := liveTree(t, srv); len(got) != 0 {
		t.Errorf("tree = %q, want nothing created", got)
	}
}

// TestRestorePlansAgainAfterAFailedStep makes the window a restore creates
// vanish once (a one-shot hook kills it): the steps that need it fail, and
// a second plan against the live state makes it again.
func TestRestorePlansAgainAfterAFailedStep(t *testing.T) {
	ts := tmuxtest.New(t)
	j, _ := mustOpen(t, "", nil)
	sup := newSup(t, ts, supervisor.Config{})
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mustDo(t, srv, "new-session", "-d", "-s", "s", "-n", "main", "-x", "100", "-y", "40") // named: automatic-rename would follow the pane's process (tmux, then sh)
	mustDo(t, srv, "new-window", "-d", "-t", "=s:", "-n", "w", "-c", dir)
	mustDo(t, srv, "split-window", "-d", "-t", "=s:w", "-c", dir)
	want := settledTree(t, srv)
	if _, err := j.TakeSnapshot(testCtx(t), srv); err != nil {
		t.Fatal(err)
	}
	mustDo(t, srv, "kill-window", "-t", "=s:w")
	mustDo(t, srv, "set-hook", "-g", "after-new-window", "set-hook -gu after-new-window ; kill-window")
	res, err := j.RestoreSnapshot(testCtx(t), srv, RestoreRequest{Snapshot: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "planned again") }) {
		t.Errorf("notes %q: want a second plan", res.Notes)
	}
	if len(res.Errors) == 0 {
		t.Errorf("errors: none, want the steps that needed the killed window")
	}
	diffTree(t, "tree after the restore", settledTree(t, srv), want)
}
