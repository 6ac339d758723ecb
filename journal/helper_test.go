package journal

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// logBuffer is a goroutine-safe buffer for a test's logger.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// mustOpen opens a journal at path (a fresh one in t.TempDir when path is
// empty). Cleanup closes it and checks the file's consistency.
func mustOpen(t testing.TB, path string, opts *Options) (*Journal, *logBuffer) {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "journal.db")
	}
	logs := &logBuffer{}
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	j, err := Open(path, &o)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := j.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := CheckFile(path, time.Second); err != nil {
			t.Errorf("journal check after the test: %v", err)
		}
	})
	return j, logs
}

func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// flush waits for the journal's queued writes.
func flush(t testing.TB, j *Journal) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := j.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// newSup returns a supervisor whose default server lives on ts's socket,
// with cfg's other settings, and fast probes.
func newSup(t testing.TB, ts *tmuxtest.Server, cfg supervisor.Config) *supervisor.Supervisor {
	t.Helper()
	cfg.DefaultSocket = tmux.Socket{Path: ts.Socket}
	cfg.TmuxConfig = "/dev/null"
	if cfg.ProbeInterval == 0 {
		cfg.ProbeInterval = 100 * time.Millisecond
	}
	sup := supervisor.New(cfg)
	sup.Subscribe(func(e supervisor.Event) {
		if e.Type == supervisor.EventServerStarted || e.Type == supervisor.EventServerAdopted {
			ts.Track(e.PID)
		}
	})
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("supervisor close: %v", err)
		}
	})
	return sup
}

// events records a supervisor's events for a test.
type events struct {
	mu  sync.Mutex
	all []supervisor.Event
}

func record(sup *supervisor.Supervisor) *events {
	r := &events{}
	sup.Subscribe(func(e supervisor.Event) {
		r.mu.Lock()
		r.all = append(r.all, e)
		r.mu.Unlock()
	})
	return r
}

func (r *events) count(typ supervisor.EventType) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.all {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func (r *events) last(typ supervisor.EventType) (supervisor.Event, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.all) - 1; i >= 0; i-- {
		if r.all[i].Type == typ {
			return r.all[i], true
		}
	}
	return supervisor.Event{}, false
}

// testSnapshotN returns a small snapshot; different n give different
// snapshots.
func testSnapshotN(n int) *Snapshot {
	s := testSnap()
	s.Seq = 0
	s.Taken = time.Now().UTC()
	s.Sessions[0].Windows[0].Panes[0].Title = "title " + strconv.Itoa(n)
	return s
}
