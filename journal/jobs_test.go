package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
)

func jobStates(t *testing.T, j *Journal) map[string]string {
	t.Helper()
	jobs, err := j.Jobs()
	if err != nil {
		t.Fatalf("Jobs: %v", err)
	}
	out := map[string]string{}
	for _, job := range jobs {
		out[job.ID] = job.State
	}
	return out
}

// TestJobsRoundTrip stores jobs and reads them back, in order of start,
// with what a restarted tmux-mcp needs to find their end again.
func TestJobsRoundTrip(t *testing.T) {
	j, _ := mustOpen(t, "", nil)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	zero := 0
	b := jobrecord.Record{ID: "jb", Socket: testSock, Pane: "%3", Nonce: "n2", State: jobrecord.Exited, ExitStatus: &zero,
		Started: t0.Add(time.Second), Ended: t0.Add(2 * time.Second), ServerPID: 10, PanePID: 11, Tail: []string{"done"}}
	a := jobrecord.Record{ID: "ja", Socket: testSock, Pane: "%1", SessionName: "main", Nonce: "n1", State: jobrecord.Running, Started: t0,
		ServerPID: 10, PanePID: 12, Anchor: jobrecord.Anchor{HistorySize: 5, HistoryLimit: 2000, Width: 80, Height: 24, CursorY: 7}}
	j.PutJob(b)
	j.PutJob(a)
	flush(t, j)
	got, err := j.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "ja" || got[1].ID != "jb" {
		t.Fatalf("Jobs = %+v, want ja then jb", got)
	}
	if g := got[0]; g.Anchor != a.Anchor || g.Nonce != "n1" || g.PanePID != 12 || g.SessionName != "main" || !g.Started.Equal(t0) {
		t.Errorf("Jobs()[0] = %+v, want %+v", g, a)
	}
	if g := got[1]; g.ExitStatus == nil || *g.ExitStatus != 0 || !slices.Equal(g.Tail, []string{"done"}) {
		t.Errorf("Jobs()[1] = %+v, want exit 0 and tail [done]", g)
	}
}

// TestJobsAcrossRestart: what a tmux-mcp stored reads back in the next
// one (another Journal on the file): a record in the form the release
// before wrote (journal.Job's JSON) whole, and a task's call that was
// lost with its server still says lost (that release dropped it).
func TestJobsAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	first, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := `{"id":"jold","socket":{"Name":"","Path":"/tmp/tmux-test/sock"},"pane":"%3","session_id":"$1","session_name":"main",` +
		`"nonce":"n0","state":"exited","exit_status":3,"started":"2026-11-28T10:28:00+01:00","ended":"2026-11-28T10:29:30+01:00",` +
		`"server_pid":4242,"pane_pid":4300,"anchor":{"history_size":120,"history_limit":2000,"width":80,"height":24,"cursor_y":7,"lines":2},` +
		`"before":[4301],"tail":["done"],"proc":5000}`
	err = first.update(func(tx *bolt.Tx) error {
		b, err := serverBucket(tx, socketKey(testSock), testSock)
		if err != nil {
			return err
		}
		return b.Bucket(bucketJobs).Put([]byte("jold"), []byte(old))
	})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 28, 10, 30, 0, 0, time.UTC)
	lost := jobrecord.Record{ID: "jlost", Socket: testSock, State: jobrecord.Lost, Reason: "the tmux server died (killed)",
		Started: t0, Ended: t0.Add(time.Second), Kind: jobrecord.KindCall,
		Call: &jobrecord.Call{Tool: "run_command", Status: jobrecord.Failed, Message: "the tmux server died during the call",
			Error: &jobrecord.RPCError{Code: -32603, Message: "the tmux server died during the call"}, Lost: true, Owner: "o1"}}
	first.PutJob(lost)
	flush(t, first)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	next, _ := mustOpen(t, path, nil)
	got, err := next.Jobs()
	if err != nil || len(got) != 2 {
		t.Fatalf("Jobs after a restart = %+v, %v; want the two records", got, err)
	}
	g := got[0]
	wantAnchor := jobrecord.Anchor{HistorySize: 120, HistoryLimit: 2000, Width: 80, Height: 24, CursorY: 7, Lines: 2}
	if g.ID != "jold" || g.Socket != testSock || g.Pane != "%3" || g.SessionID != "$1" || g.SessionName != "main" || g.Nonce != "n0" ||
		g.State != jobrecord.Exited || g.ExitStatus == nil || *g.ExitStatus != 3 || g.ServerPID != 4242 || g.PanePID != 4300 ||
		g.Anchor != wantAnchor || !slices.Equal(g.Before, []int{4301}) || !slices.Equal(g.Tail, []string{"done"}) || g.Proc != 5000 ||
		g.Ended.Sub(g.Started) != 90*time.Second {
		t.Errorf("the record of the release before read back as %+v", g)
	}
	c := got[1].Call
	if got[1].ID != "jlost" || got[1].State != jobrecord.Lost || c == nil || !c.Lost || c.Status != jobrecord.Failed ||
		c.Error == nil || c.Error.Code != -32603 || c.Owner != "o1" {
		t.Errorf("the lost call read back as %+v, call %+v; want it lost, failed, with its error", got[1], c)
	}
}

// TestJobNeverBackToRunning: a late write of a running job (a process that
// had not heard of its end) does not undo the end.
func TestJobNeverBackToRunning(t *testing.T) {
	j, _ := mustOpen(t, "", nil)
	job := jobrecord.Record{ID: "j1", Socket: testSock, State: jobrecord.Lost, Started: time.Now()}
	j.PutJob(job)
	job.State = jobrecord.Running
	j.PutJob(job)
	flush(t, j)
	if got := jobStates(t, j); got["j1"] != jobrecord.Lost {
		t.Errorf("state after a late running write = %q, want lost", got["j1"])
	}
}

// TestJobsTrimmed keeps every running job and the newest keepJobs of
// those that ended.
func TestJobsTrimmed(t *testing.T) {
	j, _ := mustOpen(t, "", nil)
	t0 := time.Now()
	j.PutJob(jobrecord.Record{ID: "running-first", Socket: testSock, State: jobrecord.Running, Started: t0})
	for i := range keepJobs + 5 {
		j.PutJob(jobrecord.Record{ID: fmt.Sprintf("e%03d", i), Socket: testSock, State: jobrecord.Exited, Started: t0.Add(time.Duration(i+1) * time.Millisecond)})
	}
	flush(t, j)
	got := jobStates(t, j)
	if len(got) != keepJobs {
		t.Errorf("%d jobs kept, want %d", len(got), keepJobs)
	}
	for _, id := range []string{"running-first", fmt.Sprintf("e%03d", keepJobs+4), "e006"} {
		if _, ok := got[id]; !ok {
			t.Errorf("job %s was deleted, want it kept", id)
		}
	}
	for _, id := range []string{"e000", "e005"} {
		if _, ok := got[id]; ok {
			t.Errorf("job %s was kept, want the oldest ended jobs deleted", id)
		}
	}
}

// TestCallsTrimmedApart: ended calls (MCP tasks) count apart from ended
// commands: many of them never push a command out.
func TestCallsTrimmedApart(t *testing.T) {
	j, _ := mustOpen(t, "", nil)
	t0 := time.Now()
	j.PutJob(jobrecord.Record{ID: "command", Socket: testSock, State: jobrecord.Exited, Started: t0})
	for i := range keepJobs + 5 {
		j.PutJob(jobrecord.Record{ID: fmt.Sprintf("c%03d", i), Socket: testSock, State: jobrecord.Exited, Kind: jobrecord.KindCall,
			Started: t0.Add(time.Duration(i+1) * time.Millisecond)})
	}
	flush(t, j)
	got := jobStates(t, j)
	if len(got) != keepJobs+1 {
		t.Errorf("%d jobs kept, want %d calls and the command", len(got), keepJobs)
	}
	for id, want := range map[string]bool{"command": true, "c000": false, "c004": false, "c005": true} {
		if _, ok := got[id]; ok != want {
			t.Errorf("job %s kept: %v, want %v", id, ok, want)
		}
	}
}

// TestServerDeathLosesJobs: the death of a server, as the supervisor
// reports it, makes its running jobs lost in the file, whichever process
// watched them; jobs of another instance and ended jobs stay as they are.
func TestServerDeathLosesJobs(t *testing.T) {
	j, _ := mustOpen(t, "", nil)
	now := time.Now()
	j.PutJob(jobrecord.Record{ID: "mine", Socket: testSock, State: jobrecord.Running, ServerPID: 100, Started: now, Tail: []string{"last"}})
	j.PutJob(jobrecord.Record{ID: "other", Socket: testSock, State: jobrecord.Running, ServerPID: 200, Started: now})
	j.PutJob(jobrecord.Record{ID: "done", Socket: testSock, State: jobrecord.Exited, ServerPID: 100, Started: now})
	j.Append(supervisor.Event{Type: supervisor.EventServerDied, Socket: testSock, PID: 100, Cause: death.CauseKilled, Time: now})
	flush(t, j)
	want := map[string]string{"mine": jobrecord.Lost, "other": jobrecord.Running, "done": jobrecord.Exited}
	if got := jobStates(t, j); !mapsEqual(got, want) {
		t.Errorf("states after the death = %v, want %v", got, want)
	}
	jobs, _ := j.Jobs()
	for _, job := range jobs {
		if job.ID == "mine" && (job.Reason != "the tmux server died (killed)" || !slices.Equal(job.Tail, []string{"last"})) {
			t.Errorf("lost job = %+v, want the cause in its reason and its tail kept", job)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestMigrateVersion1 opens a file of format 1 (servers without jobs/):
// it is migrated to the current format, its records kept, and jobs can be
// stored.
func TestMigrateVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := socketKey(testSock)
	err = db.Update(func(tx *bolt.Tx) error {
		m, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		if err := m.Put(keyVersion, []byte("1")); err != nil {
			return err
		}
		servers, err := tx.CreateBucket(bucketServers)
		if err != nil {
			return err
		}
		b, err := servers.CreateBucket([]byte(key))
		if err != nil {
			return err
		}
		for _, name := range [][]byte{bucketSnapshots, bucketEvents, bucketIDs, bucketCreated} {
			if _, err := b.CreateBucket(name); err != nil {
				return err
			}
		}
		return b.Bucket(bucketIDs).Put([]byte("%1"), []byte(`{"id":"%4","to":"1.2","from":"0.1"}`))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	j, _ := mustOpen(t, path, nil)
	var version string
	var hasJobs bool
	var ids int
	err = j.withDB(true, func(db *bolt.DB, _ *os.File) error {
		return db.View(func(tx *bolt.Tx) error {
			version = string(tx.Bucket(bucketMeta).Get(keyVersion))
			b := tx.Bucket(bucketServers).Bucket([]byte(key))
			hasJobs = b.Bucket(bucketJobs) != nil
			ids = b.Bucket(bucketIDs).Stats().KeyN
			return nil
		})
	}, false)
	if err != nil || version != strconv.Itoa(FormatVersion) || !hasJobs || ids != 1 {
		t.Fatalf("after migration: version %q, jobs/ %v, %d ids, err %v; want version %d, jobs/, the 1 id kept",
			version, hasJobs, ids, err, FormatVersion)
	}
	j.PutJob(jobrecord.Record{ID: "j", Socket: testSock, State: jobrecord.Running, Started: time.Now()})
	flush(t, j)
	if got := jobStates(t, j); got["j"] != jobrecord.Running {
		t.Errorf("jobs after migration = %v, want j running", got)
	}
}
