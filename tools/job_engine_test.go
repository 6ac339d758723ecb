package tools

import (
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// memStore is a jobs.Store in memory, standing in for the journal (whose
// own tests, and the binary's, use the bbolt file).
type memStore struct {
	mu   sync.Mutex
	jobs map[string]jobrecord.Record
}

func (m *memStore) PutJob(r jobrecord.Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.jobs[r.ID]; ok && old.State != jobrecord.Running && r.State == jobrecord.Running {
		return
	}
	m.jobs[r.ID] = r
}

func (m *memStore) Jobs() ([]jobrecord.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []jobrecord.Record
	for _, r := range m.jobs {
		out = append(out, r)
	}
	return out, nil
}

// TestJobsAfterRestart: a new tmux-mcp over the same store lists the jobs
// and finds (resumeRun) the end of one still running, whether it ends after the
// restart or ended while no tmux-mcp watched it; closing leaves no
// watcher behind.
func TestJobsAfterRestart(t *testing.T) {
	store := &memStore{jobs: map[string]jobrecord.Record{}}
	e := newEnv(t, Mutating, func(d *Deps) { d.Jobs = store })
	a, b := e.shell(), e.shell()
	fa, fb := fifo(t), fifo(t)+"b"
	if err := syscall.Mkfifo(fb, 0o600); err != nil {
		t.Fatal(err)
	}
	ja := e.startJob(a, `echo A-wa""its; read x < `+fa+"; echo A-$x; exit 4")
	jb := e.startJob(b, `echo B-wa""its; read x < `+fb+"; echo B-$x")
	for _, id := range []string{ja, jb} {
		e.getJob(id, map[string]any{"timeout": 10, "patterns": []any{"-waits"}})
	}
	if err := e.srv.Close(); err != nil {
		t.Fatal(err)
	}
	if n := goroutinesIn("jobs.(*Job).watch") + goroutinesIn("jobs.(*Job).awaitChannel"); n != 0 {
		t.Errorf("%d job goroutines after Close, want 0", n)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "no wait-for client left", func() bool { return e.waitClients("") == 0 })
	release(t, fb, "down") // ends while nobody watches
	e.srv, e.c = nil, nil

	srv, err := New(e.d, Options{Settings: mcpserver.Settings{Version: "test", ValidateOutput: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	e.srv, e.c = srv, startClient(t, srv)
	var l listResult
	e.ok("list_jobs", nil, &l)
	if l.Matched != 2 {
		t.Fatalf("list_jobs after the restart = %+v, want both jobs", l)
	}
	if r := e.awaitJob(jb); r.State != jobrecord.Exited || deref(r.ExitStatus) != 0 || !slices.Equal(r.Output, []string{"B-waits", "B-down"}) {
		t.Errorf("job that ended while nobody watched = %+v, want exited 0 with [B-waits B-down]", r)
	}
	if r := e.getJob(ja, nil); r.State != jobrecord.Running {
		t.Errorf("job still running after the restart = %+v, want running", r)
	}
	release(t, fa, "up")
	if r := e.awaitJob(ja); r.State != jobrecord.Exited || deref(r.ExitStatus) != 4 || !slices.Equal(r.Output, []string{"A-waits", "A-up"}) {
		t.Errorf("job ending after the restart = %+v, want exited 4 with [A-waits A-up]", r)
	}
}
