package journal

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// treeSnapshot is a stored-size snapshot of the 3/7/15 test tree shape.
func treeSnapshot(n int) *Snapshot {
	s := &Snapshot{Taken: time.Now().UTC(), Server: Server{PID: 4242, StartTime: 1, Version: "3.3a", Socket: "/tmp/tmux-0/tmux-mcp", Binary: "/usr/bin/tmux"}}
	id := 0
	for si, spec := range treeSpec {
		sess := Session{ID: tmux.SessionID("$" + strconv.Itoa(si)), Name: spec.name, Width: spec.width, Height: spec.height}
		for wi, w := range spec.windows {
			win := Window{ID: tmux.WindowID("@" + strconv.Itoa(si*10+wi)), Index: wi, Name: w.name, Layout: layout3, Width: spec.width, Height: spec.height}
			for pi := range w.panes {
				id++
				win.Panes = append(win.Panes, Pane{ID: tmux.PaneID("%" + strconv.Itoa(id)), Index: pi, Title: spec.name + "/" + w.name + "/" + strconv.Itoa(n),
					Path: "/home/agent/project/" + w.name, Command: "bash", Argv: []string{"-bash"}, PID: 1000 + id, Width: 80, Height: 24})
			}
			sess.Windows = append(sess.Windows, win)
		}
		s.Sessions = append(s.Sessions, sess)
	}
	return s
}

// BenchmarkStoreSnapshot measures what the journal costs per stored
// snapshot of a 3/7/15 tree: one transaction (open, lock, compare with
// the latest, write, two fsyncs, close).
//
//	go test -run '^$' -bench StoreSnapshot -benchtime 200x ./journal/
func BenchmarkStoreSnapshot(b *testing.B) {
	j, _ := mustOpen(b, "", nil)
	n := 0
	tmuxtest.MeasureLatency(b, func() error {
		n++
		_, err := j.storeSnapshot(testSock, treeSnapshot(n))
		return err
	})
}

// BenchmarkTakeSnapshot measures a snapshot of a live 3/7/15 tree whose
// state did not change: the two tmux calls, /proc, and a transaction that
// finds it equal to the latest.
//
//	go test -run '^$' -bench TakeSnapshot -benchtime 200x ./journal/
func BenchmarkTakeSnapshot(b *testing.B) {
	ts := tmuxtest.New(b)
	j, _ := mustOpen(b, "", nil)
	sup := newSup(b, ts, supervisor.Config{})
	srv, err := sup.Default(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	buildTree(b, srv, b.TempDir())
	if _, err := j.TakeSnapshot(context.Background(), srv); err != nil {
		b.Fatal(err)
	}
	tmuxtest.MeasureLatency(b, func() error {
		_, err := j.TakeSnapshot(context.Background(), srv)
		return err
	})
}

// BenchmarkEventLogSize appends 10,000 events of the kinds a busy server
// produces (structure notifications, with a snapshot event every 25) and
// reports the file's size.
//
//	go test -run '^$' -bench EventLogSize -benchtime 1x ./journal/
func BenchmarkEventLogSize(b *testing.B) {
	for range b.N {
		j, _ := mustOpen(b, "", nil)
		for i := range 10000 {
			e := supervisor.Event{Type: supervisor.EventStructure, Socket: testSock, PID: 4242, Notification: "%window-add"}
			if i%25 == 0 {
				e = supervisor.Event{Type: EventSnapshot, Socket: testSock, PID: 4242, Detail: "snapshot 123: 3 sessions, 7 windows, 15 panes"}
			}
			j.Append(e)
		}
		flush(b, j)
		report := func(unit string) {
			b.Helper()
			var file, used int64
			err := j.withDB(true, func(db *bolt.DB, f *os.File) error {
				fi, err := f.Stat()
				if err != nil {
					return err
				}
				file = fi.Size()
				return db.View(func(tx *bolt.Tx) error { used = tx.Size(); return nil })
			}, false)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(file), unit+"-file-bytes")
			b.ReportMetric(float64(used), unit+"-used-bytes")
		}
		report("events")
		if _, _, err := j.Compact(); err != nil {
			b.Fatal(err)
		}
		report("compacted")
	}
}

// TestMeasureRecovery measures, over 10 runs, the time from kill -9 of a
// tmux server holding the 3/7/15 tree to the first call that succeeds and
// to the tree being fully restored, and logs the medians. It measures
// rather than asserts (timing is the machine's), so it runs only when asked:
//
//	JOURNAL_MEASURE=1 go test -run MeasureRecovery -v ./journal/
func TestMeasureRecovery(t *testing.T) {
	if os.Getenv("JOURNAL_MEASURE") == "" {
		t.Skip("set JOURNAL_MEASURE=1 to measure")
	}
	for _, tc := range []struct {
		name   string
		policy death.RestartPolicy
	}{
		// The server had been up long enough: a clean history.
		{"clean history", death.RestartPolicy{StableAfter: 500 * time.Millisecond}},
		// What a backed-off first restart costs (the policy before).
		{"backoff", death.RestartPolicy{StableAfter: time.Hour}},
	} {
		phases := map[string][]time.Duration{}
		for range 10 {
			for k, v := range measureOnce(t, tc.policy) {
				phases[k] = append(phases[k], v)
			}
		}
		for _, k := range []string{"death noticed", "new server up", "first successful call", "restore begins", "fully restored 3/7/15 tree"} {
			d := phases[k]
			slices.Sort(d)
			t.Logf("%s: kill -9 to %s: median %v (min %v, max %v)", tc.name, k, d[len(d)/2].Round(time.Millisecond),
				d[0].Round(time.Millisecond), d[len(d)-1].Round(time.Millisecond))
		}
	}
}

// measureOnce builds the tree, kills its server and returns how long after
// the kill each phase of the recovery was reached.
func measureOnce(t *testing.T, policy death.RestartPolicy) map[string]time.Duration {
	ts := tmuxtest.New(t)
	j, _ := mustOpen(t, "", nil)
	sup := newSup(t, ts, supervisor.Config{Restorer: j, Restart: policy})
	stop := j.Watch(sup)
	defer stop()
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	buildTree(t, srv, t.TempDir())
	want := settledTree(t, srv)
	waitSnapshot(t, j, srv, want)
	ctx := context.Background()
	var mu sync.Mutex
	at := map[string]time.Time{}
	unsubscribe := sup.Subscribe(func(e supervisor.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Type {
		case supervisor.EventServerDied:
			at["death noticed"] = e.Time
		case supervisor.EventRestarted:
			at["new server up"] = e.Time
		}
	})
	defer unsubscribe()
	killed := time.Now()
	if err := syscall.Kill(srv.Health().PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The death may not be noticed yet: wait until a call fails, then
	// until one succeeds again, then for the whole tree.
	deadline := killed.Add(30 * time.Second)
	poll := func(what string, done func() bool) {
		for !done() {
			if time.Now().After(deadline) {
				flush(t, j)
				records, _ := j.Events(srv.Socket(), killed, 0)
				for _, r := range records {
					if r.Type != supervisor.EventStructure {
						t.Logf("event %s %s %s", r.Type, r.Cause, r.Detail)
					}
				}
				if live, err := readState(ctx, srv); err == nil {
					t.Logf("live tree:\n%s\nwant:\n%s", strings.Join(treeOf(live), "\n"), strings.Join(want, "\n"))
				}
				t.Fatalf("no %s 30s after kill -9", what)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	poll("failed call", func() bool { _, err := srv.Replay(ctx, []string{"list-sessions"}); return err != nil })
	poll("successful call", func() bool { _, err := srv.Replay(ctx, []string{"list-sessions"}); return err == nil })
	out := map[string]time.Duration{"first successful call": time.Since(killed)}
	poll("restored tree", func() bool {
		live, err := readState(ctx, srv)
		return err == nil && slices.Equal(treeOf(live), want)
	})
	out["fully restored 3/7/15 tree"] = time.Since(killed)
	flush(t, j)
	if records, err := j.Events(srv.Socket(), killed, 0); err == nil {
		for _, r := range records {
			if r.Type == EventRestore {
				mu.Lock()
				at["restore begins"] = r.Time.Add(-r.Duration)
				mu.Unlock()
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for k, v := range at {
		out[k] = v.Sub(killed)
	}
	return out
}

// BenchmarkPutJobAtBound measures one job's write, flushed, into a
// journal that already keeps keepJobs jobs (the steady state of a
// long-lived server): an update of a job already there, which trims
// nothing.
//
//	go test -run '^$' -bench PutJobAtBound -benchtime 200x ./journal/
func BenchmarkPutJobAtBound(b *testing.B) {
	j, _ := mustOpen(b, "", nil)
	t0 := time.Now()
	for i := range keepJobs {
		j.PutJob(jobrecord.Record{ID: "e" + strconv.Itoa(i), Socket: testSock, State: jobrecord.Exited, Started: t0.Add(time.Duration(i) * time.Millisecond),
			Tail: []string{"some output", "more output"}})
	}
	flush(b, j)
	job := jobrecord.Record{ID: "e0", Socket: testSock, State: jobrecord.Exited, Started: t0, Tail: []string{"updated"}}
	b.ResetTimer()
	for range b.N {
		j.PutJob(job)
		flush(b, j)
	}
}
