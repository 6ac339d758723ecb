package journal

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

var testSock = tmux.Socket{Path: "/tmp/tmux-test/sock"}

func TestOpenCreatesVersionedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "tmux-mcp", "journal.db")
	j, _ := mustOpen(t, path, nil)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("file mode = %o, want 600", got)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode = %o, want 700", di.Mode().Perm())
	}
	var version string
	err = j.withDB(true, func(db *bolt.DB, _ *os.File) error {
		return db.View(func(tx *bolt.Tx) error {
			version = string(tx.Bucket(bucketMeta).Get(keyVersion))
			return nil
		})
	}, false)
	if err != nil || version != strconv.Itoa(FormatVersion) {
		t.Errorf("format version = %q, %v; want %d", version, err, FormatVersion)
	}
}

func TestDefaultPath(t *testing.T) {
	env := map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}
	got, _ := DefaultPath(func(k string) string { return env[k] })
	if want := "/x/state/tmux-mcp/journal.db"; got != want {
		t.Errorf("DefaultPath = %q, want %q", got, want)
	}
	delete(env, "XDG_STATE_HOME")
	got, _ = DefaultPath(func(k string) string { return env[k] })
	if want := "/home/u/.local/state/tmux-mcp/journal.db"; got != want {
		t.Errorf("DefaultPath without XDG_STATE_HOME = %q, want %q", got, want)
	}
}

func TestNewerFormatIsLeftAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		m, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		return m.Put(keyVersion, []byte(strconv.Itoa(FormatVersion+1)))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	_, err = Open(path, nil)
	if !errors.Is(err, ErrNewerFormat) {
		t.Fatalf("Open = %v, want ErrNewerFormat", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Errorf("the newer file was changed")
	}
	if m, _ := filepath.Glob(path + ".corrupt-*"); len(m) != 0 {
		t.Errorf("moved aside: %v; a newer format must be left where it is", m)
	}
}

// TestUnreadableFileMovedAside checks that a file that is not a readable
// journal is moved aside with a warning and a fresh one works.
func TestUnreadableFileMovedAside(t *testing.T) {
	garbage := make([]byte, 64<<10)
	rand.Read(garbage)
	tests := []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, path string) {
			os.WriteFile(path, garbage, 0o600)
		}},
		{"too short", func(t *testing.T, path string) {
			os.WriteFile(path, garbage[:3000], 0o600)
		}},
		{"truncated", func(t *testing.T, path string) {
			writeSnapshots(t, path, 40)
			fi, _ := os.Stat(path)
			if err := os.Truncate(path, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}},
		{"damaged pages", func(t *testing.T, path string) {
			writeSnapshots(t, path, 40)
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := f.Stat()
			// Everything after the two meta pages.
			f.WriteAt(garbage[:min(int64(len(garbage)), fi.Size()-8192)], 8192)
			f.Close()
		}},
		{"not a journal", func(t *testing.T, path string) {
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("other")); return err })
			db.Close()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.db")
			tt.make(t, path)
			before, _ := os.ReadFile(path)
			j, logs := mustOpen(t, path, nil)
			moved, _ := filepath.Glob(path + ".corrupt-*")
			if len(moved) != 1 {
				t.Fatalf("files moved aside: %v, want one", moved)
			}
			if kept, _ := os.ReadFile(moved[0]); !bytes.Equal(kept, before) {
				t.Errorf("the file moved aside differs from the unreadable one")
			}
			if !strings.Contains(logs.String(), "moved it aside") || !strings.Contains(logs.String(), moved[0]) {
				t.Errorf("log %q: want a warning naming %s", logs.String(), moved[0])
			}
			j.Append(supervisor.Event{Type: supervisor.EventStructure, Socket: testSock, Notification: "%window-add"})
			flush(t, j)
			got, err := j.Events(testSock, time.Time{}, 0)
			if err != nil || len(got) != 1 || got[0].Notification != "%window-add" {
				t.Errorf("fresh journal: Events = %+v, %v; want the one event appended", got, err)
			}
		})
	}
}

// writeSnapshots fills a journal at path with n distinct snapshots.
func writeSnapshots(t *testing.T, path string, n int) {
	t.Helper()
	j, err := Open(path, &Options{KeepSnapshots: n})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := j.storeSnapshot(testSock, testSnapshotN(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLockedFileIsWaitedForNotMoved checks that a file another process
// keeps locked is an error of the surroundings: nothing is moved, and
// queued events are written once the lock is gone.
func TestLockedFileIsWaitedForNotMoved(t *testing.T) {
	j, _ := mustOpen(t, "", &Options{LockTimeout: 100 * time.Millisecond})
	f, err := os.Open(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = j.storeSnapshot(testSock, testSnapshotN(1))
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("storeSnapshot while locked = %v, want ErrLocked", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("gave up after %v, want it to wait the lock timeout (100ms)", d)
	}
	for i := range 5 {
		j.Append(supervisor.Event{Type: supervisor.EventStructure, Socket: testSock, Detail: letter(i)})
	}
	if m, _ := filepath.Glob(j.Path() + ".corrupt-*"); len(m) != 0 {
		t.Errorf("moved aside %v: a locked file is not corrupt", m)
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	flush(t, j)
	got, err := j.Events(testSock, time.Time{}, 0)
	if err != nil || len(got) != 5 {
		t.Fatalf("events after the lock was released = %d, %v; want 5", len(got), err)
	}
}

func letter(i int) string { return string(rune('a' + i)) }

func TestSnapshotsStoredOnlyWhenTheyDiffer(t *testing.T) {
	j, _ := mustOpen(t, "", &Options{KeepSnapshots: 3})
	store := func(s *Snapshot) bool {
		t.Helper()
		ok, err := j.storeSnapshot(testSock, s)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !store(testSnapshotN(0)) {
		t.Fatalf("first snapshot not stored")
	}
	again := testSnapshotN(0)
	again.Taken = again.Taken.Add(time.Minute)
	again.Sessions[0].Windows[0].Panes[0].HistorySize = 5000
	if store(again) {
		t.Errorf("a snapshot differing only in time and history size was stored")
	}
	for i := 1; i <= 4; i++ {
		if !store(testSnapshotN(i)) {
			t.Errorf("snapshot %d not stored", i)
		}
	}
	list, err := j.Snapshots(testSock, 0)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	for _, s := range list {
		seqs = append(seqs, s.Seq)
	}
	if want := []uint64{5, 4, 3}; !equalU(seqs, want) {
		t.Errorf("kept snapshots %v, want %v (the last 3, newest first)", seqs, want)
	}
	if s := list[0]; s.Sessions != 2 || s.Windows != 3 || s.Panes != 5 || s.Instance != "100.1000" {
		t.Errorf("summary %+v, want 2 sessions, 3 windows, 5 panes of instance 100.1000", s)
	}
	got, err := j.Snapshot(testSock, 0)
	if err != nil || got.Seq != 5 || got.Sessions[0].Windows[0].Panes[0].Title != "title 4" {
		t.Errorf("latest snapshot = %+v, %v; want seq 5 with title 4", got, err)
	}
	if _, err := j.Snapshot(testSock, 1); !errors.Is(err, ErrNoSnapshot) {
		t.Errorf("Snapshot(1) after retention = %v, want ErrNoSnapshot", err)
	}
}

func equalU(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEventsSinceLimitAndRetention(t *testing.T) {
	j, _ := mustOpen(t, "", &Options{KeepEvents: 24 * time.Hour})
	now := time.Now()
	for i, age := range []time.Duration{3 * time.Hour, 2 * time.Hour, 30 * time.Minute, 10 * time.Minute, time.Minute} {
		j.Append(supervisor.Event{Type: supervisor.EventStructure, Socket: testSock, Time: now.Add(-age), Attempt: i})
	}
	flush(t, j)
	attempts := func(rs []Record) []int {
		var out []int
		for _, r := range rs {
			out = append(out, r.Attempt)
		}
		return out
	}
	all, _ := j.Events(testSock, time.Time{}, 0)
	if got := attempts(all); len(got) != 5 {
		t.Fatalf("events = %v, want 5", got)
	}
	recent, _ := j.Events(testSock, now.Add(-time.Hour), 0)
	if got := attempts(recent); !equalI(got, []int{2, 3, 4}) {
		t.Errorf("events of the last hour = %v, want [2 3 4]", got)
	}
	last2, _ := j.Events(testSock, time.Time{}, 2)
	if got := attempts(last2); !equalI(got, []int{3, 4}) {
		t.Errorf("last 2 events = %v, want [3 4]", got)
	}
	if err := j.update(func(tx *bolt.Tx) error { return pruneEvents(tx, now.Add(-time.Hour)) }); err != nil {
		t.Fatal(err)
	}
	kept, _ := j.Events(testSock, time.Time{}, 0)
	if got := attempts(kept); !equalI(got, []int{2, 3, 4}) {
		t.Errorf("events after pruning = %v, want [2 3 4]", got)
	}
}

func equalI(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestResolveFollowsRestoresAndSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, _ := mustOpen(t, path, nil)
	restore := func(from, to string, m map[string]string) {
		t.Helper()
		if err := j.finishRestore(testSock, from, to, 0, execution{ids: m}); err != nil {
			t.Fatal(err)
		}
	}
	// Server A (%3, %4) restored onto B (%0, %1), then B onto C (%5, %6).
	restore("1.1", "2.2", map[string]string{"%3": "%0", "%4": "%1"})
	if got, ok := j.Resolve(testSock, "%3"); !ok || got != "%0" {
		t.Errorf("Resolve(%%3) after one restore = %q, %v; want %%0", got, ok)
	}
	restore("2.2", "3.3", map[string]string{"%0": "%5", "%1": "%6"})
	j2, _ := mustOpen(t, path, nil) // another process, or tmux-mcp restarted
	for old, want := range map[string]string{"%3": "%5", "%4": "%6", "%0": "%5", "%1": "%6"} {
		if got, ok := j2.Resolve(testSock, old); !ok || got != want {
			t.Errorf("Resolve(%s) after two restores = %q, %v; want %s", old, got, ok, want)
		}
	}
	if got, ok := j2.Resolve(testSock, "%9"); ok {
		t.Errorf("Resolve(%%9) = %q, want not found", got)
	}
	// A snapshot of a later server (no restore onto it) makes the old map
	// stale: its IDs lead nowhere live.
	s := testSnapshotN(1)
	s.Server.PID, s.Server.StartTime = 4, 4
	if _, err := j2.storeSnapshot(testSock, s); err != nil {
		t.Fatal(err)
	}
	if got, ok := j2.Resolve(testSock, "%3"); ok {
		t.Errorf("Resolve(%%3) on a server that was never restored = %q, want not found", got)
	}
}

func TestCompactShrinksTheFile(t *testing.T) {
	j, _ := mustOpen(t, "", &Options{KeepSnapshots: 200})
	for i := range 200 {
		if _, err := j.storeSnapshot(testSock, testSnapshotN(i)); err != nil {
			t.Fatal(err)
		}
	}
	j.opts.KeepSnapshots = 5
	before, after, err := j.Compact()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("compact: %d -> %d bytes", before, after)
	if after >= before/2 {
		t.Errorf("compact: %d -> %d bytes, want less than half", before, after)
	}
	fi, _ := os.Stat(j.Path())
	if fi.Size() != after {
		t.Errorf("file size %d, want %d as reported", fi.Size(), after)
	}
	list, _ := j.Snapshots(testSock, 0)
	if len(list) != 5 || list[0].Seq != 200 {
		t.Errorf("after compact: %d snapshots, newest %v; want 5, newest 200", len(list), list)
	}
}
