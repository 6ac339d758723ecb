package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
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

// notes collects notifications from OnNotify.
type notes struct {
	mu   sync.Mutex
	list []Notification
}

func (n *notes) add(x Notification) {
	n.mu.Lock()
	n.list = append(n.list, x)
	n.mu.Unlock()
}

func (n *notes) find(match func(Notification) bool) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, x := range n.list {
		if match(x) {
			return true
		}
	}
	return false
}

func (n *notes) dump(t *testing.T) {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, x := range n.list {
		t.Logf("notification %s %q", x.Type, x.Raw)
	}
}

func (n *notes) output(pane PaneID) []byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	var b []byte
	for _, x := range n.list {
		if (x.Type == NotifyOutput || x.Type == NotifyExtendedOutput) && x.Pane == pane {
			b = append(b, x.Data...)
		}
	}
	return b
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

func TestControlServerKilled(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	pid := s.Start("main")
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output"})
	runTest(t, c, "display-message", "-p", "up")

	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed 5 s after the server was killed")
	}
	err := c.Err()
	if !errors.Is(err, ErrConnectionLost) || !errors.Is(err, ErrServerExited) {
		t.Errorf("Err() = %v, want ErrConnectionLost and ErrServerExited", err)
	}
	var lost *ConnLostError
	if !errors.As(err, &lost) || lost.Reason != "server exited unexpectedly" {
		t.Errorf("Err() = %#v, want *ConnLostError with reason %q", err, "server exited unexpectedly")
	}
	if _, err := c.Run(context.Background(), "display-message", "-p", "x"); !errors.Is(err, ErrConnectionLost) {
		t.Errorf("Run after death: err = %v, want ErrConnectionLost", err)
	}
	c.Close()
}

// stopServer sends SIGSTOP to pid (a server the test started) and SIGCONT
// when the test ends. It returns a func that sends SIGCONT now.
func stopServer(t *testing.T, pid int) (cont func()) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	cont = func() { syscall.Kill(pid, syscall.SIGCONT) }
	t.Cleanup(cont)
	return cont
}

// runAsync runs one command with the given deadline on its own goroutine.
func runAsync(c *Control, timeout time.Duration, args ...string) <-chan runResult {
	ch := make(chan runResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		out, err := c.Run(ctx, args...)
		ch <- runResult{string(out), err}
	}()
	return ch
}

type runResult struct {
	out string
	err error
}

// pendingLen returns how many requests are written and not yet answered
// (abandoned ones included).
func pendingLen(c *Control) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// TestControlDeadlineAbandons stops the server while four callers with
// long deadlines are in flight and checks that a fifth caller's short
// deadline fails only that caller: the connection stays up and the four get
// their own answers once the server runs again.
func TestControlDeadlineAbandons(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	pid := s.Start("main")
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output"})
	runTest(t, c, "display-message", "-p", "up")

	cont := stopServer(t, pid)
	var long []<-chan runResult
	for i := range 4 {
		long = append(long, runAsync(c, 5*time.Second, "display-message", "-p", fmt.Sprintf("long-%d", i)))
	}
	tmuxtest.WaitFor(t, 5*time.Second, "four requests written", func() bool { return pendingLen(c) == 4 })

	const deadline = 100 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	_, err := c.Run(ctx, "display-message", "-p", "short")
	elapsed := time.Since(start)
	var cerr *CommandError
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &cerr) || cerr.Transport != "control" {
		t.Errorf("Run on a stopped server: err = %#v, want a control *CommandError matching ErrTimeout and context.DeadlineExceeded", err)
	}
	if errors.Is(err, ErrConnectionLost) {
		t.Errorf("Run on a stopped server: err = %v, want no ErrConnectionLost", err)
	}
	// Generous bound: the point is that Run returns at its deadline, not
	// after the stopped server answers.
	if elapsed > deadline+2*time.Second {
		t.Errorf("Run returned after %v, deadline was %v", elapsed, deadline)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("one caller's deadline ended the connection: %v", err)
	}
	for i, ch := range long {
		select {
		case r := <-ch:
			t.Fatalf("caller %d returned while the server was stopped: %q, %v", i, r.out, r.err)
		default:
		}
	}
	if got := pendingLen(c); got != 5 {
		t.Errorf("pending = %d, want 5 (the abandoned request stays queued)", got)
	}

	cont()
	for i, ch := range long {
		r := <-ch
		if want := fmt.Sprintf("long-%d\n", i); r.err != nil || r.out != want {
			t.Errorf("caller %d: got %q, %v; want %q", i, r.out, r.err, want)
		}
	}
	if got, want := runTest(t, c, "display-message", "-p", "after"), "after\n"; got != want {
		t.Errorf("after SIGCONT: got %q, want %q", got, want)
	}
	if err := c.Err(); err != nil {
		t.Errorf("Err() = %v, want the connection up", err)
	}
	// The reader frees a slot just after it hands over the answer.
	tmuxtest.WaitFor(t, 5*time.Second, "queue drained", func() bool { return pendingLen(c) == 0 && len(c.sem) == 0 })
}

// TestControlStallEndsConnection stops the server for good: although no
// caller's deadline passes, the connection ends once the oldest request has
// gone unanswered for StallTimeout, and Close does not hang.
func TestControlStallEndsConnection(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	pid := s.Start("main")
	const stall = 300 * time.Millisecond
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output", StallTimeout: stall})
	runTest(t, c, "display-message", "-p", "up")

	stopServer(t, pid)
	start := time.Now()
	first := runAsync(c, 10*time.Second, "list-windows")
	tmuxtest.WaitFor(t, 5*time.Second, "the first request written", func() bool { return pendingLen(c) == 1 })
	second := runAsync(c, 10*time.Second, "display-message", "-p", "second")
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed 5 s after the server stopped")
	}
	if elapsed := time.Since(start); elapsed < stall {
		t.Errorf("connection ended after %v, before StallTimeout %v", elapsed, stall)
	}
	err := c.Err()
	var lost *ConnLostError
	if !errors.As(err, &lost) || !strings.HasPrefix(lost.Reason, "list-windows unanswered for ") {
		t.Errorf("Err() = %v, want a *ConnLostError naming list-windows as unanswered", err)
	}
	if !errors.Is(err, ErrConnectionLost) || errors.Is(err, ErrTimeout) {
		t.Errorf("Err() = %v, want ErrConnectionLost and not ErrTimeout", err)
	}
	for _, ch := range []<-chan runResult{first, second} {
		select {
		case r := <-ch:
			if !errors.Is(r.err, ErrConnectionLost) {
				t.Errorf("caller in flight: err = %v, want ErrConnectionLost", r.err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("caller in flight not released 5 s after the connection ended")
		}
	}
	if _, err := c.Run(context.Background(), "display-message", "-p", "x"); !errors.Is(err, ErrConnectionLost) {
		t.Errorf("Run after the stall: err = %v, want ErrConnectionLost", err)
	}
	// Close must not hang on the stopped server.
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung with the server stopped")
	}
}

// TestControlStallSparesBusyConnection keeps a connection busy with prompt
// answers for several StallTimeouts: the watchdog fires, finds the oldest
// request young or none pending, and sets itself again without ending the
// connection.
func TestControlStallSparesBusyConnection(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	s.Start("main")
	const stall = 200 * time.Millisecond
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output", StallTimeout: stall})
	start := time.Now()
	for i := 0; time.Since(start) < 4*stall; i++ {
		want := fmt.Sprintf("busy-%d\n", i)
		if got := runTest(t, c, "display-message", "-p", strings.TrimSuffix(want, "\n")); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if err := c.Err(); err != nil {
		t.Fatalf("a connection that answers promptly was ended: %v", err)
	}
}

// TestControlAbandonedKeepsFIFO abandons a request between two others that
// wait behind a closed gate, and checks that every request still gets its
// own answer.
func TestControlAbandonedKeepsFIFO(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	s.Start("main")
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output"})
	runTest(t, c, closeGate(s, "gate")...)

	a := runAsync(c, 10*time.Second, "display-message", "-p", "a")
	tmuxtest.WaitFor(t, 5*time.Second, "a written", func() bool { return pendingLen(c) == 1 })
	if r := <-runAsync(c, 100*time.Millisecond, "display-message", "-p", "b"); !errors.Is(r.err, ErrTimeout) {
		t.Errorf("abandoned request: got %q, %v; want ErrTimeout", r.out, r.err)
	}
	cc := runAsync(c, 10*time.Second, "display-message", "-p", "c")
	tmuxtest.WaitFor(t, 5*time.Second, "c written", func() bool { return pendingLen(c) == 3 })
	if err := c.Err(); err != nil {
		t.Fatalf("connection ended: %v", err)
	}
	s.MustTmux("wait-for", "-S", "gate")
	for _, x := range []struct {
		ch   <-chan runResult
		want string
	}{{a, "a\n"}, {cc, "c\n"}} {
		if r := <-x.ch; r.err != nil || r.out != x.want {
			t.Errorf("got %q, %v; want %q", r.out, r.err, x.want)
		}
	}
	for i := range 3 {
		want := fmt.Sprintf("next-%d\n", i)
		if got := runTest(t, c, "display-message", "-p", strings.TrimSuffix(want, "\n")); got != want {
			t.Errorf("after the abandoned request: got %q, want %q", got, want)
		}
	}
	tmuxtest.WaitFor(t, 5*time.Second, "queue drained", func() bool { return pendingLen(c) == 0 && len(c.sem) == 0 })
}

// TestControlFullPipeAbandonsUnwritten stops the server and sends more
// than its stdin pipe holds: requests whose line could not be written by
// their deadline are taken back (nothing is owed for them) and those that
// were written are abandoned; the connection stays up and in step.
func TestControlFullPipeAbandonsUnwritten(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	pid := s.Start("main")
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output", StallTimeout: time.Minute})
	runTest(t, c, "display-message", "-p", "up")

	cont := stopServer(t, pid)
	// Lines under PIPE_BUF are written whole or not at all.
	const n, size = 60, 3000
	pad := strings.Repeat("x", size)
	var chs []<-chan runResult
	for i := range n {
		chs = append(chs, runAsync(c, 500*time.Millisecond, "display-message", "-p", fmt.Sprintf("%d-%s", i, pad)))
	}
	for i, ch := range chs {
		if r := <-ch; !errors.Is(r.err, ErrTimeout) || errors.Is(r.err, ErrConnectionLost) {
			t.Errorf("request %d: got %.20q, %v; want ErrTimeout", i, r.out, r.err)
		}
	}
	if err := c.Err(); err != nil {
		t.Fatalf("connection ended: %v", err)
	}
	written := pendingLen(c)
	t.Logf("%d of %d requests written before the pipe filled", written, n)
	if written == 0 || written >= n {
		t.Errorf("written = %d, want some but not all of %d (pipe capacity about 64 kB)", written, n)
	}
	if slots := len(c.sem); slots != written {
		t.Errorf("slots taken = %d, want %d (one per written request)", slots, written)
	}
	cont()
	tmuxtest.WaitFor(t, 5*time.Second, "queue drained", func() bool { return pendingLen(c) == 0 && len(c.sem) == 0 })
	if got, want := runTest(t, c, "display-message", "-p", "after"), "after\n"; got != want {
		t.Errorf("after SIGCONT: got %q, want %q", got, want)
	}
}

func TestControlCancelKeepsConnection(t *testing.T) {
	s := tmuxtest.New(t)
	s.Start("main")
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output"})
	runTest(t, c, closeGate(s, "gate")...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Run(ctx, "display-message", "-p", "abandoned")
		done <- err
	}()
	tmuxtest.WaitFor(t, 5*time.Second, "a request in flight", func() bool { return len(c.sem) == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Errorf("cancelled Run: err = %v, want context.Canceled and not ErrTimeout", err)
	}
	s.MustTmux("wait-for", "-S", "gate")
	// The abandoned answer is consumed; the next request gets its own.
	if got, want := runTest(t, c, "display-message", "-p", "next"), "next\n"; got != want {
		t.Errorf("after cancel: got %q, want %q", got, want)
	}
}

func TestControlNotifications(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	s.Start("main")
	var got notes
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output", OnNotify: got.add})
	defer got.dump(t)

	win := strings.TrimSpace(runTest(t, c, "new-window", "-d", "-t", "=main:", "-P", "-F", "#{window_id}"))
	tmuxtest.WaitFor(t, 5*time.Second, "%window-add "+win, func() bool {
		return got.find(func(n Notification) bool { return n.Type == NotifyWindowAdd && n.Window == WindowID(win) })
	})
	s.MustTmux("new-session", "-d", "-s", "other")
	tmuxtest.WaitFor(t, 5*time.Second, "%sessions-changed", func() bool {
		return got.find(func(n Notification) bool { return n.Type == NotifySessionsChanged })
	})
	runTest(t, c, "rename-window", "-t", win, "new name")
	tmuxtest.WaitFor(t, 5*time.Second, "%window-renamed", func() bool {
		return got.find(func(n Notification) bool {
			return n.Type == NotifyWindowRenamed && n.Window == WindowID(win) && n.Name == "new name"
		})
	})
	sess := strings.TrimSpace(runTest(t, c, "display-message", "-p", "-t", "=main:", "#{session_id}"))
	runTest(t, c, "rename-session", "-t", "=main", "renamed")
	tmuxtest.WaitFor(t, 5*time.Second, "%session-renamed", func() bool {
		return got.find(func(n Notification) bool {
			return n.Type == NotifySessionRenamed && n.Session == SessionID(sess) && n.Name == "renamed"
		})
	})
	c.Close()
}

func TestControlOutputAndAutoContinue(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	s.Start("main")
	var got notes
	c := dialTest(t, s, ControlOptions{
		Target: "=main", Flags: "ignore-size,pause-after=5", OnNotify: got.add, AutoContinue: true,
	})
	defer got.dump(t)

	// The user's shell may take long to start (rc files); cat echoes
	// through the tty at once.
	pane := PaneID(strings.TrimSpace(runTest(t, c, "new-window", "-d", "-t", "=main:", "-P", "-F", "#{pane_id}", "exec cat")))
	s.MustTmux("send-keys", "-t", string(pane), "-l", "hello\n")
	tmuxtest.WaitFor(t, 5*time.Second, "output containing hello", func() bool {
		return bytes.Contains(got.output(pane), []byte("hello"))
	})
	if !got.find(func(n Notification) bool { return n.Type == NotifyExtendedOutput }) {
		t.Errorf("no %%extended-output with pause-after set")
	}

	// Pause the pane: AutoContinue must resume it.
	runTest(t, c, "refresh-client", "-A", string(pane)+":pause")
	tmuxtest.WaitFor(t, 5*time.Second, "%continue after %pause", func() bool {
		return got.find(func(n Notification) bool { return n.Type == NotifyContinue && n.Pane == pane })
	})
	s.MustTmux("send-keys", "-t", string(pane), "-l", "world\n")
	tmuxtest.WaitFor(t, 5*time.Second, "output after continue", func() bool {
		return bytes.Contains(got.output(pane), []byte("world"))
	})
	c.Close()
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
