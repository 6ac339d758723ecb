package diagnostics

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

func connRefused() error {
	return fmt.Errorf("probe socket /x: %w", &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED})
}

// staleFacts are what is left of a server whose parent reaped it: a stale
// socket file and nothing else.
func staleFacts(j *journalFacts) *serverFacts {
	made := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	return &serverFacts{
		sock: tmux.Socket{Path: "/nonexistent/tmux-test/s"}, path: "/nonexistent/tmux-test/s",
		dirErr: os.ErrNotExist, file: fakeSocket{}, times: fileTimes{Mtime: made},
		connectErr: connRefused(), journal: j, now: made.Add(time.Hour), goos: "linux",
	}
}

type fakeSocket struct{ os.FileInfo }

func (fakeSocket) Mode() os.FileMode { return os.ModeSocket | 0o600 }

func reportOf(t *testing.T, facts ...*serverFacts) *Report {
	t.Helper()
	o := Options{Machine: fixedMachine()}.withDefaults()
	r := &Report{SchemaVersion: SchemaVersion, GeneratedAt: facts[0].now}
	finish(context.Background(), o, r, facts)
	return r
}

// TestReapedServerRanksCandidates: once the dead server's parent reaped
// it, and with no journal, nothing says how it died: the report ranks what
// fits a stale socket, most common first, and says it is unsure.
func TestReapedServerRanksCandidates(t *testing.T) {
	r := reportOf(t, staleFacts(nil))
	sr := r.Servers[0]
	if sr.Verdict == nil || sr.Verdict.Cause != string(death.CauseUnknown) || sr.Verdict.Confidence != Possible {
		t.Fatalf("verdict = %+v, want unknown (possible)", sr.Verdict)
	}
	var got []string
	for _, c := range r.Causes {
		if c.Confidence != Possible {
			t.Errorf("cause %s: confidence %s, want possible", c.Cause, c.Confidence)
		}
		if len(c.Against) == 0 {
			t.Errorf("cause %s: nothing against it, want the missing evidence named", c.Cause)
		}
		got = append(got, c.Cause)
	}
	want := []string{string(death.CauseLastSession), string(death.CauseKilled), string(death.CauseCrashed)}
	if !slices.Equal(got, want) {
		t.Errorf("causes = %v, want %v", got, want)
	}
	if r.ExitCode() != ExitWarnings {
		t.Errorf("exit code = %d, want 1 (a stale socket, cause unknown)", r.ExitCode())
	}
}

// TestJournalRecordedDeath: with no exit status left, the cause the
// supervisor recorded when it saw the death stands in for "unknown".
func TestJournalRecordedDeath(t *testing.T) {
	died := time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)
	j := &journalFacts{events: []supervisor.Event{
		{Type: supervisor.EventServerAdopted, Time: died.Add(-time.Hour), PID: 4242},
		{Type: supervisor.EventServerDied, Time: died, PID: 4242, Cause: death.CauseFDLivelock, Detail: "server PID 4242 is alive but not answering with 95% of its file descriptors in use"},
	}}
	r := reportOf(t, staleFacts(j))
	v := r.Servers[0].Verdict
	if v.Cause != string(death.CauseFDLivelock) || v.Confidence != Likely || !strings.Contains(v.Basis, "recorded") {
		t.Errorf("verdict = %+v, want fd_livelock (likely) recorded by the supervisor", v)
	}
	if top := r.Causes[0]; top.Cause != string(death.CauseFDLivelock) {
		t.Errorf("top cause = %s, want fd_livelock", top.Cause)
	}
	if !hasTimeline(r, "journal", "died: fd_livelock") {
		t.Errorf("timeline %+v: want the recorded death", r.Timeline)
	}
}

func TestMatchZombie(t *testing.T) {
	made := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	z := func(pid int, before time.Duration) zombie {
		return zombie{PID: pid, UID: 1000, Started: made.Add(-before), Status: syscall.WaitStatus(syscall.SIGKILL)}
	}
	tests := []struct {
		name      string
		zs        []zombie
		jpid      int
		jstart    time.Time
		uid       int
		wantPID   int
		wantExact bool
	}{
		{"closest start before the socket", []zombie{z(1, 900*time.Millisecond), z(2, 40*time.Millisecond)}, 0, time.Time{}, 1000, 2, false},
		{"started after the socket", []zombie{z(1, -time.Second)}, 0, time.Time{}, 1000, 0, false},
		{"started too long before", []zombie{z(1, 3*time.Second)}, 0, time.Time{}, 1000, 0, false},
		{"two in the same instant", []zombie{z(1, 40*time.Millisecond), z(2, 50*time.Millisecond)}, 0, time.Time{}, 1000, 0, false},
		{"another user's", []zombie{z(1, 40*time.Millisecond)}, 0, time.Time{}, 0, 0, false},
		{"the journal's PID and start", []zombie{z(1, 40*time.Millisecond), z(7, time.Hour)}, 7, made.Add(-time.Hour), 1000, 7, true},
		{"the journal's PID, reused", []zombie{z(7, time.Hour)}, 7, made.Add(-3 * time.Hour), 1000, 0, false},
		{"the journal's PID reaped: no other", []zombie{z(1, 40*time.Millisecond)}, 7, made.Add(-time.Hour), 1000, 0, false},
		{"the journal's PID without a start", []zombie{z(7, time.Hour)}, 7, time.Time{}, 1000, 7, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := matchZombie(tt.zs, tt.jpid, tt.jstart, made, tt.uid)
			if ok != (tt.wantPID != 0) || got.PID != tt.wantPID || got.Exact != tt.wantExact {
				t.Errorf("matchZombie = pid %d exact %v ok %v, want pid %d exact %v", got.PID, got.Exact, ok, tt.wantPID, tt.wantExact)
			}
			if ok && got.MatchedBy == "" {
				t.Error("no MatchedBy")
			}
		})
	}
}
