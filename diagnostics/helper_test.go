package diagnostics

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestMain makes the test process the reaper of the tmux servers its tests
// start where the platform allows it (becomeSubreaper): they daemonize,
// and would be reparented to init or a user manager, which reap them at
// their own pace. A dead server then stays a zombie, with its exit status,
// until a test reaps it or this process ends. Diagnose reads that status;
// when it is gone the report says so (TestReapedServerRanksCandidates).
func TestMain(m *testing.M) {
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "diagnostics tests:", err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// diagnose runs diagnose on one socket and fails the test if it cannot.
func diagnose(t *testing.T, sock tmux.Socket, mod ...func(*Options)) *Report {
	t.Helper()
	o := Options{Sockets: []tmux.Socket{sock}}
	for _, m := range mod {
		m(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return r
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

// topCause returns the best-ranked likely cause, failing the test when
// there is none.
func topCause(t *testing.T, r *Report) LikelyCause {
	t.Helper()
	if len(r.Causes) == 0 {
		t.Fatalf("no likely cause; report:\n%s", r.Markdown())
	}
	return r.Causes[0]
}

// wantTop checks the top cause and the exit code.
func wantTop(t *testing.T, r *Report, cause string, exit int) LikelyCause {
	t.Helper()
	top := topCause(t, r)
	if top.Cause != cause {
		t.Errorf("top cause = %q (%s), want %q; report:\n%s", top.Cause, top.Confidence, cause, r.Markdown())
	}
	if got := r.ExitCode(); got != exit {
		t.Errorf("exit code = %d, want %d", got, exit)
	}
	return top
}

// check returns the server check with the given ID.
func check(t *testing.T, sr ServerReport, id string) Check {
	t.Helper()
	for _, c := range sr.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no check %s in %s", id, sr.Socket)
	return Check{}
}

// containsStep reports whether one of steps contains want.
func containsStep(steps []string, want string) bool {
	for _, s := range steps {
		if strings.Contains(s, want) {
			return true
		}
	}
	return false
}

// memJournal is the Journal interface over memory: what tmux-mcp's journal
// would hold for a server it supervised (the journal package itself is
// not a dependency of this one).
type memJournal struct {
	path     string
	checkErr error
	events   map[string][]supervisor.Event
	snaps    map[string]SnapshotInfo
}

func newMemJournal() *memJournal {
	return &memJournal{path: "/state/tmux-mcp/journal.db", events: map[string][]supervisor.Event{}, snaps: map[string]SnapshotInfo{}}
}

func (j *memJournal) Path() string { return j.path }
func (j *memJournal) Check() error { return j.checkErr }
func (j *memJournal) Servers() ([]string, error) {
	var out []string
	for p := range j.snaps {
		out = append(out, p)
	}
	for p := range j.events {
		if _, ok := j.snaps[p]; !ok {
			out = append(out, p)
		}
	}
	return out, nil
}

func (j *memJournal) Events(path string, since time.Time) ([]supervisor.Event, error) {
	var out []supervisor.Event
	for _, e := range j.events[path] {
		if !e.Time.Before(since) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (j *memJournal) LastSnapshot(path string) (SnapshotInfo, bool, error) {
	s, ok := j.snaps[path]
	return s, ok, nil
}

// record stores what the journal records of a live server: the adoption
// event and a snapshot with the server's PID and start time, as tmux
// reports them.
func (j *memJournal) record(t *testing.T, ts *tmuxtest.Server) {
	t.Helper()
	out := ts.MustTmux("display-message", "-p", "#{pid} #{start_time} #{version}")
	f := strings.Fields(out)
	pid, _ := strconv.Atoi(f[0])
	start, _ := strconv.ParseInt(f[1], 10, 64)
	now := time.Now()
	j.events[ts.Socket] = append(j.events[ts.Socket], supervisor.Event{Type: supervisor.EventServerAdopted, Time: now,
		Socket: tmux.Socket{Path: ts.Socket}, PID: pid})
	j.snaps[ts.Socket] = SnapshotInfo{Taken: now, PID: pid, Started: time.Unix(start, 0), Version: f[2], Sessions: 1, Windows: 1, Panes: 1}
}

// fixedMachine has fixed system-wide figures and files, so that reports
// compare equal on any machine; /proc/uptime stays real (it dates real
// processes).
func fixedMachine() Machine {
	files := map[string]string{
		"/proc/meminfo":                "MemTotal:       16384000 kB\nMemFree:         8000000 kB\n",
		"/usr/lib/tmpfiles.d/tmp.conf": "# systemd's default\nD /tmp 1777 root root -\n",
	}
	return Machine{
		GOOS:      "linux",
		KernelLog: func() ([]string, error) { return nil, nil },
		System: func() proc.Resources {
			return proc.Resources{PTYs: 12, PTYMax: 4096, FilesAllocated: 3000, FilesMax: 1000000}
		},
		ReadFile: func(name string) ([]byte, error) {
			if s, ok := files[name]; ok {
				return []byte(s), nil
			}
			if name == "/proc/uptime" {
				return os.ReadFile(name)
			}
			return nil, os.ErrNotExist
		},
		Glob: func(pattern string) ([]string, error) {
			var out []string
			for name := range files {
				if ok, _ := filepath.Match(pattern, name); ok {
					out = append(out, name)
				}
			}
			return out, nil
		},
	}
}
