package tmuxtest

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TrapEnv is the environment variable that names a Trap's directory in
// the tmux server's global environment, where format jobs read it.
const TrapEnv = "TMUX_MCP_TEST_TRAP"

// Trap catches tmux format jobs that run where a literal was meant. Job
// returns text that, if tmux ever expands it as a format, runs a shell
// job leaving a file in the trap's directory; Sprung lists the jobs that
// ran.
type Trap struct {
	t   testing.TB
	s   *Server
	Dir string

	mu sync.Mutex
	n  int
}

// NewTrap sets a trap on s: the trap's directory goes into the global
// environment of s's server if it runs, and into this process's
// environment for servers started later (so tests that use it cannot run
// in parallel).
func NewTrap(t testing.TB, s *Server) *Trap {
	t.Helper()
	dir, err := os.MkdirTemp("", "trap")
	if err != nil {
		t.Fatalf("tmuxtest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv(TrapEnv, dir)
	if s.PID() > 0 {
		s.MustTmux("set-environment", "-g", TrapEnv, dir)
	}
	return &Trap{t: t, s: s, Dir: dir}
}

// Job returns a fresh format job that leaves the file jobN in the trap's
// directory. It holds no "/" (so it can be a file name) and no "$" before
// a letter or "\\" (tmux would escape those in a name).
func (tr *Trap) Job() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.n++
	return jobTouching("job" + strconv.Itoa(tr.n))
}

func jobTouching(file string) string {
	return `#(cd "$(printenv ` + TrapEnv + `)" && touch ` + file + ")"
}

// Sprung waits for the format jobs s's server may have started so far,
// then returns the names of the jobs that ran. tmux runs format jobs in
// the background; run-shell waits for its command, which the server
// starts after every job started before it, so that by its end those have
// had their turn.
func (tr *Trap) Sprung() []string {
	tr.t.Helper()
	if tr.s.PID() > 0 {
		for range 2 {
			tr.s.Tmux("run-shell", "true") //nolint:errcheck // a barrier only
		}
	}
	entries, err := os.ReadDir(tr.Dir)
	if err != nil {
		tr.t.Fatalf("tmuxtest: %v", err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "job") {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out
}
