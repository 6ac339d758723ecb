// Package tmuxtest gives tests an isolated tmux server: its own short socket
// path, no config file (-f /dev/null), no TMUX or TMUX_PANE in the
// environment, and a cleanup that kills the server it started. It never
// touches the user's default server, and tests that use it pass when run
// inside tmux.
//
// One setting picks the tmux every test runs: TMUX_MCP_TEST_TMUX, the path
// of a tmux binary named "tmux" (make matrix sets it for each version).
// When it is set, importing this package puts that binary's directory
// first in PATH, so that the supervisors, the built tmux-mcp and the
// harnesses that tests start (which run "tmux") use it too; Binary names
// it for code that wants the path.
//
// Test panes never run the machine's shell start-up files (a login bash
// may run anything, and a lock a killed shell leaves behind can make every
// later shell wait): importing this package sets SHELL, which tmux takes
// as its default-shell, to a wrapper (see Shell) that runs /bin/sh as a
// plain, non-login shell without ENV. Tests about shells start their own.
package tmuxtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BinaryEnv is the setting that picks the tmux binary for tests.
const BinaryEnv = "TMUX_MCP_TEST_TMUX"

// binary is the tmux tests use, resolved once by init.
var binary, binaryErr = resolveBinary()

// Shell is the shell test panes run (SHELL for everything a test starts):
// a wrapper that execs /bin/sh with its arguments, so that tmux's login
// shell ("-sh") becomes a plain sh that reads no profile or ENV file.
var Shell, shellErr = installShell()

func installShell() (string, error) {
	dir := filepath.Join(os.TempDir(), "tmux-mcp-test-"+strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "sh")
	script := "#!/bin/sh\n# tmuxtest: a shell without start-up files for test panes.\nunset ENV\nexec /bin/sh \"$@\"\n"
	if b, err := os.ReadFile(path); err != nil || string(b) != script {
		tmp, err := os.CreateTemp(dir, "sh.*")
		if err != nil {
			return "", err
		}
		tmp.WriteString(script) //nolint:errcheck // checked by Close
		if err := tmp.Close(); err != nil {
			return "", err
		}
		if err := os.Chmod(tmp.Name(), 0o755); err != nil {
			return "", err
		}
		if err := os.Rename(tmp.Name(), path); err != nil {
			return "", err
		}
	}
	os.Setenv("SHELL", path) //nolint:errcheck
	os.Unsetenv("ENV")       //nolint:errcheck
	return path, nil
}

func resolveBinary() (string, error) {
	bin := os.Getenv(BinaryEnv)
	if bin == "" {
		return exec.LookPath("tmux")
	}
	if !filepath.IsAbs(bin) || filepath.Base(bin) != "tmux" {
		return "", fmt.Errorf("tmuxtest: %s=%q: want the absolute path of a binary named tmux", BinaryEnv, bin)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("tmuxtest: %s: %w", BinaryEnv, err)
	}
	// Everything a test starts that runs "tmux" must find this one.
	os.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH")) //nolint:errcheck
	return bin, nil
}

// RecordEnv, when set to a directory, makes Binary leave a file there
// named after each top-level test that asks for tmux: scripts/citest
// learns which tests start tmux from the race suite, and runs only those
// again on every tmux of the matrix.
const RecordEnv = "TMUX_MCP_TEST_RECORD_DIR"

// Binary returns the tmux binary tests run (see BinaryEnv), skipping the
// test when there is none and failing it when the setting is wrong.
func Binary(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv(RecordEnv); dir != "" {
		top, _, _ := strings.Cut(t.Name(), "/")
		os.WriteFile(filepath.Join(dir, top), nil, 0o644) //nolint:errcheck // a missing record runs the test again: no harm
	}
	if shellErr != nil {
		t.Fatalf("tmuxtest: test shell: %v", shellErr)
	}
	if binaryErr != nil {
		if os.Getenv(BinaryEnv) != "" {
			t.Fatal(binaryErr)
		}
		t.Skip("tmux not installed")
	}
	return binary
}

// Server is one isolated tmux server for a test.
type Server struct {
	t      testing.TB
	Dir    string // private directory holding the socket
	Socket string // socket path, for tmux -S

	mu    sync.Mutex
	pid   int    // last server PID seen
	start uint64 // its start time (startTime): a PID reused later is not ours
}

// New returns a Server with a fresh socket path. The server itself starts
// with the first command that creates a session (see NewSession or Start).
// Cleanup kills it: kill-server first, then SIGKILL to its PID if it is
// still alive.
func New(t testing.TB) *Server {
	t.Helper()
	Binary(t)
	// t.TempDir paths can exceed the 108-byte unix socket limit; use a
	// short directory of our own.
	dir, err := os.MkdirTemp("", "tmt")
	if err != nil {
		t.Fatalf("tmuxtest: %v", err)
	}
	s := &Server{t: t, Dir: dir, Socket: filepath.Join(dir, "s")}
	t.Cleanup(func() {
		s.Kill()
		os.RemoveAll(dir)
	})
	return s
}

// Env is the environment for tmux processes in tests: the current one
// without TMUX and TMUX_PANE.
func Env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TMUX=") || strings.HasPrefix(kv, "TMUX_PANE=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Tmux runs a tmux command against this server with a 5 s deadline and
// returns its trimmed stdout and any error (stderr included in the error).
func (s *Server) Tmux(args ...string) (string, error) {
	return s.TmuxWithin(5*time.Second, args...)
}

// TmuxWithin is Tmux with a deadline of d, for commands expected to hang
// (a stopped or livelocked server). The client is killed at the deadline.
func (s *Server) TmuxWithin(d time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	argv := append([]string{"-S", s.Socket, "-f", "/dev/null"}, args...)
	cmd := exec.CommandContext(ctx, binary, argv...)
	cmd.Env = Env()
	// A tmux client passes its stdout to the server; a livelocked or
	// stopped server keeps it open after the client is killed.
	cmd.WaitDelay = 200 * time.Millisecond
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState.Success() {
		// The client exited with all its output written; only the server
		// was slow to close its copy of the pipe.
		err = nil
	}
	if err != nil {
		return strings.TrimRight(string(out), "\n"), &cmdError{args: args, stderr: stderr.String(), err: err}
	}
	return strings.TrimRight(string(out), "\n"), nil
}

// MustTmux is Tmux that fails the test on error.
func (s *Server) MustTmux(args ...string) string {
	s.t.Helper()
	out, err := s.Tmux(args...)
	if err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
	return out
}

// Start creates the server with one detached session named name (120x40)
// running the default shell, and returns the server's PID.
func (s *Server) Start(name string) int {
	s.t.Helper()
	s.MustTmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40")
	// tmux 3.2a sizes a detached session's first window from the client
	// that created it (80x24 without a terminal) whatever -x and -y say;
	// later windows follow -x and -y. Make the first one the same.
	if s.MustTmux("display-message", "-p", "-t", "="+name+":", "#{window_width}x#{window_height}") != "120x40" {
		s.MustTmux("resize-window", "-t", "="+name+":", "-x", "120", "-y", "40")
	}
	// Until the pane's shell has started, its process is tmux's fork and
	// automatic-rename names the window "tmux": wait, so that a test's
	// picture of the server does not change under it.
	WaitFor(s.t, 10*time.Second, "the first pane's shell", func() bool {
		out, err := s.Tmux("display-message", "-p", "-t", "="+name+":", "#{pane_current_command}/#{window_name}")
		cmd, win, _ := strings.Cut(out, "/")
		return err == nil && cmd != "tmux" && cmd != "" && win != "tmux"
	})
	return s.PID()
}

// PID returns the server's PID, or 0 when no server answers.
func (s *Server) PID() int {
	out, err := s.Tmux("display-message", "-p", "#{pid}")
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(out)
	s.Track(pid)
	return pid
}

// Track records pid as this server's, so that Kill ends it even if it no
// longer answers (tests whose server was started by the supervisor). The
// process's start time is recorded with it: Kill signals the PID only
// while it still names that process, never another that reused it.
func (s *Server) Track(pid int) {
	if pid > 0 {
		start := startTime(pid)
		s.mu.Lock()
		s.pid, s.start = pid, start
		s.mu.Unlock()
	}
}

func (s *Server) lastPID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pid
}

// ours reports whether pid still names the server process Track recorded:
// alive, and started when it did.
func (s *Server) ours(pid int) bool {
	s.mu.Lock()
	want, start := s.pid, s.start
	s.mu.Unlock()
	return pid == want && start != 0 && Alive(pid) && startTime(pid) == start
}

// Kill ends the server: kill-server, then SIGKILL to the PID it had if that
// process is still alive. A PID is signalled only while it names the
// server process recorded (ours): a server that died long before may have
// left its PID to another process, which is none of this test's. Safe to
// call more than once.
func (s *Server) Kill() {
	if pid := s.lastPID(); pid > 0 && s.ours(pid) {
		// A test may have stopped the server; let it run so it can exit.
		syscall.Kill(pid, syscall.SIGCONT) //nolint:errcheck
	}
	s.PID() // tracks the server that answers now, if one does
	pid := s.lastPID()
	s.Tmux("kill-server") //nolint:errcheck // the server may be gone already
	if pid <= 0 {
		return
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if !s.ours(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s.ours(pid) {
		syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck
	}
}

// WaitFor polls cond every 10 ms until it returns true or timeout passes,
// and fails the test on timeout. Use it instead of sleeping.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type cmdError struct {
	args   []string
	stderr string
	err    error
}

func (e *cmdError) Error() string {
	return "tmux " + strings.Join(e.args, " ") + ": " + e.err.Error() + ": " + strings.TrimSpace(e.stderr)
}

func (e *cmdError) Unwrap() error { return e.err }

// PIDOf returns the last server PID s has seen, asking the server if it has
// seen none. It works while the socket is missing, as long as the PID was
// seen before.
func PIDOf(t testing.TB, s *Server) int {
	t.Helper()
	if pid := s.lastPID(); pid > 0 {
		return pid
	}
	pid := s.PID()
	if pid <= 0 {
		t.Fatal("tmuxtest: no server PID known")
	}
	return pid
}

// MeasureLatency runs op b.N times and reports the median and 95th
// percentile latency as the metrics p50-µs and p95-µs, so benchmark tables
// can quote latencies from one run.
func MeasureLatency(b *testing.B, op func() error) {
	b.Helper()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := op(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*95/100].Nanoseconds())/1e3, "p95-µs")
}
