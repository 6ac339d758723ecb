package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"go.uber.org/goleak"
)

// verifyNoLeaks checks, after every other cleanup of the test (Close, server
// kill) has run, that no goroutine started during the test is left.
func verifyNoLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// testExec returns an Exec for the test server.
func testExec(s *tmuxtest.Server) *Exec {
	return &Exec{Socket: Socket{Path: s.Socket}, Config: "/dev/null"}
}

// dialTest opens a control connection to session target on s and closes it
// when the test ends.
func dialTest(t testing.TB, s *tmuxtest.Server, opts ControlOptions) *Control {
	t.Helper()
	if opts.Exec == nil {
		opts.Exec = testExec(s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := DialControl(ctx, opts)
	if err != nil {
		t.Fatalf("DialControl: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// runTest runs one command with a 5 s deadline and fails the test on error.
func runTest(t testing.TB, c *Control, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := c.Run(ctx, args...)
	if err != nil {
		t.Fatalf("Run(%q): %v", args, err)
	}
	return string(out)
}

func TestControlRun(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	s.Start("main")
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output,ignore-size"})
	v, err := ParseVersion(runTest(t, c, "display-message", "-p", "#{version}"))
	if err != nil {
		t.Fatal(err)
	}
	// 3.4 prints a backslash before a '$' that a letter follows (see
	// OutputDollarEscaped); the argument still reached tmux unexpanded.
	dollar := "$"
	if v.Capabilities().OutputDollarEscaped {
		dollar = "\\$"
	}

	tests := []struct {
		args []string
		want string
	}{
		{[]string{"display-message", "-p", "hello"}, "hello\n"},
		{[]string{"display-message", "-p", "#{session_name}"}, "main\n"},
		{[]string{"display-message", "-p", "a b;c'd\"e$HOME~"}, "a b;c'd\"e" + dollar + "HOME~\n"},
		{[]string{"list-windows", "-t", "=main", "-F", "#{window_index}"}, "0\n"},
		{[]string{"set-buffer", "-b", "x", "--", "one\ntwo"}, ""},
		{[]string{"show-buffer", "-b", "x"}, "one\ntwo\n"},
		{[]string{"display-message", "-p", ""}, "\n"},
	}
	for _, tt := range tests {
		if got := runTest(t, c, tt.args...); got != tt.want {
			t.Errorf("Run(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
	if got, want := c.Kind(), "control"; got != want {
		t.Errorf("Kind() = %q, want %q", got, want)
	}
	// The client is tmux-mcp's own (package native): no tmux client process.
	if got, want := runTest(t, c, "display-message", "-p", "#{client_pid} #{client_control_mode}"), fmt.Sprintf("%d 1\n", os.Getpid()); got != want {
		t.Errorf("client pid and control mode = %q, want %q", got, want)
	}
	if err := c.Err(); err != nil {
		t.Errorf("Err() = %v while connected", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case <-c.Done():
	default:
		t.Errorf("Done not closed after Close")
	}
	if err := c.Err(); !errors.Is(err, ErrConnectionLost) {
		t.Errorf("Err() after Close = %v, want ErrConnectionLost", err)
	}
	if _, err := c.Run(context.Background(), "display-message", "-p", "x"); !errors.Is(err, ErrConnectionLost) {
		t.Errorf("Run after Close: err = %v, want ErrConnectionLost", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestControlErrors(t *testing.T) {
	s := tmuxtest.New(t)
	s.Start("main")
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	tests := []struct {
		args   []string
		class  error
		stderr string
	}{
		{[]string{"kill-pane", "-t", "%999"}, ErrPaneNotFound, "can't find pane: %999"},
		{[]string{"kill-window", "-t", "@999"}, ErrWindowNotFound, "can't find window: @999"},
		{[]string{"has-session", "-t", "=nosuch"}, ErrSessionNotFound, "can't find session: nosuch"},
		{[]string{"new-session", "-d", "-s", "main"}, ErrDuplicateSession, "duplicate session: main"},
		{[]string{"no-such-command"}, ErrCommand, "parse error: unknown command: no-such-command"},
	}
	for _, tt := range tests {
		_, err := c.Run(ctx, tt.args...)
		var cerr *CommandError
		if !errors.As(err, &cerr) {
			t.Errorf("Run(%q): err = %v, want *CommandError", tt.args, err)
			continue
		}
		if !errors.Is(err, tt.class) || !errors.Is(err, ErrCommand) {
			t.Errorf("Run(%q): err = %v (class %v), want class %v", tt.args, err, cerr.Class, tt.class)
		}
		if cerr.Stderr != tt.stderr || cerr.ExitCode != 1 || cerr.Transport != "control" {
			t.Errorf("Run(%q): got Stderr %q ExitCode %d Transport %q, want %q 1 control",
				tt.args, cerr.Stderr, cerr.ExitCode, cerr.Transport, tt.stderr)
		}
	}
	if errors.Is(func() error { _, err := c.Run(ctx, "kill-pane", "-t", "%999"); return err }(), ErrNotFound) != true {
		t.Errorf("pane not found does not match ErrNotFound")
	}

	// Arguments tmux cannot take are refused before anything is written.
	bad := [][]string{
		nil,
		{"display-message", "-p", "a\x00b"},
		{"FOO=bar"},
		{"#comment"},
		{"%if"},
		{""},
	}
	for _, args := range bad {
		if _, err := c.Run(ctx, args...); err == nil || errors.Is(err, ErrConnectionLost) {
			t.Errorf("Run(%q): err = %v, want a validation error", args, err)
		}
	}
	// The connection is still in step.
	if got, want := runTest(t, c, "display-message", "-p", "still"), "still\n"; got != want {
		t.Errorf("after refused runs: got %q, want %q", got, want)
	}
}

func TestDialControlErrors(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	s.Start("main")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	_, err := DialControl(ctx, ControlOptions{Exec: testExec(s), Target: "=nosuch"})
	if !errors.Is(err, ErrSessionNotFound) {
		t.Errorf("dial missing session: err = %v, want ErrSessionNotFound", err)
	}
	missing := &Exec{Socket: Socket{Path: s.Dir + "/missing"}, Config: "/dev/null"}
	_, err = DialControl(ctx, ControlOptions{Exec: missing, Target: "=main", NoStartServer: true})
	if !errors.Is(err, ErrSocketMissing) {
		t.Errorf("dial missing socket: err = %v, want ErrSocketMissing", err)
	}
	if _, err := os.Stat(missing.Socket.Path); err == nil {
		t.Errorf("dial on a missing socket created %s", missing.Socket.Path)
	}
	// A stale socket file: with -N no server starts.
	stale := s.Dir + "/stale"
	if err := os.WriteFile(stale, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = DialControl(ctx, ControlOptions{Exec: &Exec{Socket: Socket{Path: stale}, Config: "/dev/null"}, Target: "=main", NoStartServer: true})
	if err == nil || errors.Is(err, ErrTimeout) {
		t.Errorf("dial stale socket: err = %v, want a connection error", err)
	}
	_, err = DialControl(ctx, ControlOptions{Target: "=main"})
	if err == nil {
		t.Errorf("dial without Exec: err = nil")
	}
}

func TestControlPipelined(t *testing.T) {
	s := tmuxtest.New(t)
	s.Start("main")
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output", MaxInFlight: 8})
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for j := range 5 {
				want := fmt.Sprintf("req-%d-%d", i, j)
				out, err := c.Run(ctx, "display-message", "-p", want)
				if err != nil {
					errs <- fmt.Errorf("%s: %w", want, err)
					return
				}
				if got := string(out); got != want+"\n" {
					errs <- fmt.Errorf("got %q, want %q", got, want+"\n")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// closeGate returns a command after which a control client's queue is held
// until s.MustTmux("wait-for", "-S", name). tmux 3.3a answers run-shell at
// once but runs the client's next command only when the job has finished;
// the job is a plain client blocked in wait-for. (wait-for sent by a control
// client itself returns at once.)
func closeGate(s *tmuxtest.Server, name string) []string {
	return []string{"run-shell", "tmux -S " + s.Socket + " wait-for " + name}
}

// TestControlMaxInFlight holds two requests in flight behind a closed gate
// and checks that a third waits for room, times out without writing, and
// leaves the connection usable.
func TestControlMaxInFlight(t *testing.T) {
	s := tmuxtest.New(t)
	s.Start("main")
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output", MaxInFlight: 2})
	runTest(t, c, closeGate(s, "gate")...)

	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			want := fmt.Sprintf("held-%d\n", i)
			out, err := c.Run(ctx, "display-message", "-p", strings.TrimSuffix(want, "\n"))
			if err != nil || string(out) != want {
				t.Errorf("held request: got %q, %v; want %q", out, err, want)
			}
		}()
	}
	tmuxtest.WaitFor(t, 5*time.Second, "two requests in flight", func() bool { return len(c.sem) == 2 })

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.Run(ctx, "display-message", "-p", "third")
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("third request: err = %v, want ErrTimeout", err)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("connection ended by a request that was never written: %v", err)
	}
	c.mu.Lock()
	queued := len(c.pending)
	c.mu.Unlock()
	if queued != 2 {
		t.Errorf("pending = %d, want 2", queued)
	}
	s.MustTmux("wait-for", "-S", "gate")
	wg.Wait()
	if got, want := runTest(t, c, "display-message", "-p", "after"), "after\n"; got != want {
		t.Errorf("after release: got %q, want %q", got, want)
	}
}

// TestControlLastAnswer: LastAnswer moves with every answer, that of a
// request its caller abandoned included (the hang detector counts it as
// the server at work).
func TestControlLastAnswer(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	s.Start("main")
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output,ignore-size"})
	if got := c.LastAnswer(); !got.IsZero() {
		t.Errorf("LastAnswer before any command = %v, want zero", got)
	}
	before := time.Now()
	runTest(t, c, "display-message", "-p", "x")
	first := c.LastAnswer()
	if first.Before(before) {
		t.Errorf("LastAnswer = %v, want at or after %v", first, before)
	}
	// run-shell without -b is answered at once but holds the client's
	// queue until the shell ends: the next command is abandoned at its
	// deadline, and its answer arrives after Run returned.
	runTest(t, c, "run-shell", "sleep 0.5")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err := c.Run(ctx, "display-message", "-p", "x")
	cancel()
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("display-message behind run-shell sleep 0.5, within 50ms: %v, want ErrTimeout", err)
	}
	returned := time.Now()
	tmuxtest.WaitFor(t, 5*time.Second, "the abandoned command's answer", func() bool {
		return c.LastAnswer().After(returned)
	})
}
