package tmux

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// A Control whose server stops answering or dies: callers' deadlines
// abandon requests without ending the connection, the stall watchdog ends
// it when the oldest request goes unanswered, and a lost server fails
// everything in flight.

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
// connection. A machine too busy to answer one request within the
// StallTimeout (make ci at load) ends it rightly: the test then checks
// that the request named unanswered was one that took that long.
func TestControlStallSparesBusyConnection(t *testing.T) {
	verifyNoLeaks(t)
	s := tmuxtest.New(t)
	s.Start("main")
	const stall = 200 * time.Millisecond
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output", StallTimeout: stall})
	start := time.Now()
	for i := 0; time.Since(start) < 4*stall; i++ {
		want := fmt.Sprintf("busy-%d\n", i)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		sent := time.Now()
		out, err := c.Run(ctx, "display-message", "-p", strings.TrimSuffix(want, "\n"))
		took := time.Since(sent)
		cancel()
		switch {
		case err != nil && errors.Is(err, ErrConnectionLost) && took >= stall:
			t.Logf("this request took %v, longer than the StallTimeout: the connection was ended rightly (%v)", took, err)
			return
		case err != nil:
			t.Fatalf("request %d, answered or not in %v: %v; want no end while every request is answered within %v", i, took, err, stall)
		case string(out) != want:
			t.Fatalf("got %q, want %q", out, want)
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
