package journal

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestRestoreReplaysNothing records untrusted text in every field a
// restore replays (session names, a grouped session's name, window names,
// pane titles, one set by the pane's own program through an escape
// sequence, working directories, and the environment tmux-mcp gave a
// pane), kills the server, and checks that
// the restore ran no format job and restored every field as it was.
func TestRestoreReplaysNothing(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh") // restored panes run a shell without rc files
	ts := tmuxtest.New(t)
	j, _ := mustOpen(t, "", nil)
	sup := newSup(t, ts, supervisor.Config{Restorer: j})
	rec := record(sup)
	t.Cleanup(j.Watch(sup))
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	trap := tmuxtest.NewTrap(t, ts)
	ts.MustTmux("set-option", "-g", "@trap", trap.Job())
	// The text each field holds; raw tmux commands below write it with
	// tmux.Literal, so that tmux stores it as it is.
	root := t.TempDir()
	dir := func(name string) string {
		d := filepath.Join(root, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	// Session and window names hold a backslash too: tmux stores names
	// escaped on every version, so each restore that replayed a name as
	// recorded would double it.
	sess, group := trap.Job(), `g\`+trap.Job()
	win1, win2 := "#{E:@trap}", `w\ ; display-message -p '`+trap.Job()+"'"
	// Titles hold a backslash, which tmux 3.7 stores doubled
	// (TitlesEscaped): the restore must not double it again.
	title := `t\` + trap.Job()
	escTitle := `e\` + trap.Job() // set by the pane's program
	dir1, dir2 := dir(trap.Job()), dir("#{session_name};x")

	lit := tmux.Literal
	ts.MustTmux("new-session", "-d", "-s", lit(sess), "-n", lit(win1), "-c", lit(dir1), "-x", "100", "-y", "30", "exec cat")
	ts.MustTmux("new-session", "-d", "-s", lit(group), "-t", "="+sess)
	titleFile := filepath.Join(root, "title")
	if err := os.WriteFile(titleFile, []byte("\x1b]2;"+escTitle+"\x1b\\"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts.MustTmux("new-window", "-d", "-t", "="+sess+":", "-n", lit(win2), "-c", lit(dir2), "cat "+titleFile+"; exec cat")
	ts.MustTmux("split-window", "-d", "-t", "="+sess+":0", "-c", lit(dir2), "exec cat")
	ts.MustTmux("select-pane", "-t", "="+sess+":0.0", "-T", lit(title))
	// What tmux-mcp recorded creating a pane: its directory and environment.
	created := ts.MustTmux("display-message", "-p", "-t", "="+sess+":0.1", "#{pane_id}")
	j.RecordCreated(srv.Socket(), tmux.PaneID(created), nil, dir2, []string{"TMCP_X=" + trap.Job()}, false)
	// What tmux stores of each title.
	stored, storedEsc := title, escTitle
	caps := serverCaps(t, ts)
	if caps.TitlesEscaped {
		stored, storedEsc = strings.ReplaceAll(stored, `\`, `\\`), strings.ReplaceAll(storedEsc, `\`, `\\`)
	}
	storedGroup, storedWin2 := strings.ReplaceAll(group, `\`, `\\`), win2
	if caps.NewWindowNameEscaped {
		storedWin2 = strings.ReplaceAll(win2, `\`, `\\`)
	}
	if caps.ProgramJobsDefused {
		storedEsc = strings.Replace(storedEsc, "#(", "_(", 1)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the title the pane's program sets", func() bool {
		return slices.Contains(strings.Split(ts.MustTmux("list-panes", "-a", "-F", "#{pane_title}"), "\n"), storedEsc)
	})
	want := settledTree(t, srv)
	for _, text := range []string{sess, storedGroup, win1, storedWin2, stored, storedEsc, dir1, dir2} {
		if !strings.Contains(strings.Join(want, "\n"), text) {
			t.Fatalf("tree before the kill lacks %q:\n%s", text, strings.Join(want, "\n"))
		}
	}
	// Raw tmux commands are no supervisor events: snapshot now.
	if _, err := j.TakeSnapshot(testCtx(t), srv); err != nil {
		t.Fatal(err)
	}
	waitSnapshot(t, j, srv, want)

	restores := rec.count(supervisor.EventRestored)
	if err := syscall.Kill(srv.Health().PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 15*time.Second, "the restore", func() bool { return rec.count(supervisor.EventRestored) > restores })
	if e, _ := rec.last(supervisor.EventRestored); e.Detail != "" {
		t.Errorf("restore reported %q, want no error", e.Detail)
	}
	if sprung := trap.Sprung(); len(sprung) > 0 {
		t.Errorf("the restore ran format jobs: %v", sprung)
	}
	diffTree(t, "restored tree", settledTree(t, srv), want)
}

// serverCaps returns the capabilities of ts's server.
func serverCaps(t *testing.T, ts *tmuxtest.Server) tmux.Capabilities {
	t.Helper()
	v, err := tmux.ParseVersion(ts.MustTmux("display-message", "-p", "#{version}"))
	if err != nil {
		t.Fatal(err)
	}
	return v.Capabilities()
}
