package diagnostics

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// The golden reports come from real runs against isolated servers on a
// fixed machine (fixedMachine); what still varies from run to run (times,
// PIDs, paths, resource figures, the tmux version) is normalised.
// UPDATE_GOLDEN=1 rewrites them.

var goldenNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// volatileFacts are the facts whose values change from run to run, by
// name or by check ID and name.
var volatileFacts = map[string]bool{
	"created": true, "started": true, "uptime": true, "state": true, "fds": true, "rss": true, "threads": true,
	"cpu": true, "history held": true, "server rss": true, "owner uid": true, "server binary": true,
	"last snapshot": true, "last snapshot age": true, "tmux.binary/path": true,
}

// volatileSummaries are the checks whose one-line summary holds figures.
var volatileSummaries = map[string]bool{"server.process": true, "server.history": true}

// normalise replaces what varies in r by placeholders, in place.
func normalise(r *Report) {
	r.GeneratedAt = goldenNow
	for i := range r.Timeline {
		r.Timeline[i].Time = goldenNow.Add(time.Duration(i-len(r.Timeline)) * time.Second)
	}
	fix := func(checks []Check) {
		for i := range checks {
			c := &checks[i]
			if volatileSummaries[c.ID] && c.Status == StatusOK {
				c.Summary = "<volatile>"
			}
			// Present only before tmux 3.6.
			c.Evidence = slices.DeleteFunc(c.Evidence, func(f Fact) bool { return f.Name == "control-mode capture-pane -p" })
			for j := range c.Evidence {
				if n := c.Evidence[j].Name; volatileFacts[n] || volatileFacts[c.ID+"/"+n] {
					c.Evidence[j].Value = "<volatile>"
				}
			}
		}
	}
	fix(r.System)
	for i := range r.Servers {
		fix(r.Servers[i].Checks)
		if v := r.Servers[i].Verdict; v != nil && v.Cause == "" {
			v.Basis = "<volatile>"
		}
	}
}

// scrub replaces the run's paths, PIDs, uid and tmux version in text.
func scrub(b []byte, dir string, pids []int, version string) []byte {
	b = bytes.ReplaceAll(b, []byte(dir), []byte("/tmp/tmt-test"))
	for _, pid := range pids {
		b = regexp.MustCompile(`\b`+strconv.Itoa(pid)+`\b`).ReplaceAll(b, []byte("4242"))
	}
	if version != "" {
		b = bytes.ReplaceAll(b, []byte(version), []byte("<version>"))
	}
	return regexp.MustCompile(`owner uid \d+`).ReplaceAll(b, []byte("owner uid <uid>"))
}

func golden(t *testing.T, name string, r *Report, dir string, pids []int, version string) {
	t.Helper()
	normalise(r)
	js, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for ext, got := range map[string][]byte{".json": js, ".md": []byte(r.Markdown())} {
		got = scrub(got, dir, pids, version)
		path := filepath.Join("testdata", name+ext)
		if os.Getenv("UPDATE_GOLDEN") == "1" {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run UPDATE_GOLDEN=1 go test ./diagnostics -run TestGolden)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs (UPDATE_GOLDEN=1 go test ./diagnostics -run TestGolden if intended)\ngot:\n%s", path, got)
		}
	}
}

func goldenOptions(j Journal) func(*Options) {
	return func(o *Options) {
		o.Machine = fixedMachine()
		if j != nil {
			o.Journal = j
		}
	}
}

// goldenName is the golden report of a test on ts's server: where the
// capability table says the version has known regressions
// (SpinRegressions, DeadPaneOutputCrash), the report warns of them, in a
// golden file of its own.
func goldenName(t *testing.T, ts *tmuxtest.Server, name string) string {
	t.Helper()
	switch caps := serverCaps(t, ts); {
	case caps.SpinRegressions:
		return name + "-spin-regressions"
	case caps.DeadPaneOutputCrash:
		return name + "-dead-pane-crash"
	}
	return name
}

func TestGoldenKilled(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("main")
	version := ts.MustTmux("display-message", "-p", "#{version}")
	name := goldenName(t, ts, "killed")
	j := newMemJournal()
	j.record(t, ts)
	syscall.Kill(pid, syscall.SIGKILL)
	tmuxtest.WaitFor(t, 10*time.Second, "server to die", func() bool { return !tmuxtest.Alive(pid) })
	r := diagnose(t, tmux.Socket{Path: ts.Socket}, goldenOptions(j))
	golden(t, name, r, ts.Dir, []int{pid}, version)
}

func TestGoldenHealthy(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("main")
	version := ts.MustTmux("display-message", "-p", "#{version}")
	r := diagnose(t, tmux.Socket{Path: ts.Socket}, goldenOptions(nil))
	golden(t, goldenName(t, ts, "healthy"), r, ts.Dir, []int{pid}, version)
}
