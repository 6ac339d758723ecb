package tools

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// waitClients counts the commands of this test's supervisor waiting
// inside tmux (wait-for), each on a client connection of its own; the
// channel is for the reader.
func (e *env) waitClients(string) int {
	e.t.Helper()
	srv, err := e.sup.Default(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return srv.Health().Blocking
}

// waitAsync calls wait_for_channel in the background; the result arrives
// on the channel returned.
func (e *env) waitAsync(ctx context.Context, args map[string]any) <-chan *mcp.CallToolResult {
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "wait_for_channel"
		req.Params.Arguments = args
		res, err := e.c.CallTool(ctx, req)
		if err != nil {
			res = mcp.NewToolResultError("protocol error: " + err.Error())
		}
		done <- res
	}()
	return done
}

func (e *env) blockedOn(channel string) {
	e.t.Helper()
	tmuxtest.WaitFor(e.t, 10*time.Second, "a tmux client waiting on "+channel, func() bool { return e.waitClients(channel) == 1 })
}

func TestSignalChannel(t *testing.T) {
	e := newEnv(t, Mutating)
	var m messageResult
	e.ok("signal_channel", map[string]any{"channel": "nobody.waits:1"}, &m)
	if m.Result != "Channel 'nobody.waits:1' signalled" {
		t.Errorf("signal_channel = %q", m.Result)
	}
	for _, good := range []string{"tests_done", "deploy.prod", "ns:ready-2", "a", strings.Repeat("x", 128)} {
		e.ok("signal_channel", map[string]any{"channel": good}, nil)
	}
	for _, bad := range []string{"", "has space", "with/slash", strings.Repeat("x", 129), "!bang", "semi;colon"} {
		e.fails("signal_channel", map[string]any{"channel": bad}, "Invalid channel name")
		e.fails("wait_for_channel", map[string]any{"channel": bad, "timeout": 0.1}, "Invalid channel name")
	}
}

func TestWaitForChannelSignalled(t *testing.T) {
	e := newEnv(t, Mutating)
	done := e.waitAsync(context.Background(), map[string]any{"channel": "build.done", "timeout": 20})
	e.blockedOn("build.done")
	// The wait holds an exec client, not the control connection: other
	// calls are answered while it blocks.
	for i := 0; i < 10; i++ {
		e.ok("list_sessions", nil, nil)
	}
	select {
	case res := <-done:
		t.Fatalf("wait_for_channel returned before the signal: %q", text(res))
	default:
	}
	e.ok("signal_channel", map[string]any{"channel": "build.done"}, nil)
	res := <-done
	if res.IsError || text(res) != "Channel 'build.done' was signalled (timeout 20.0s)" {
		t.Errorf("wait_for_channel = %q (error %v), want signalled", text(res), res.IsError)
	}
}

func TestWaitForChannelTimeout(t *testing.T) {
	e := newEnv(t, Mutating)
	e.fails("wait_for_channel", map[string]any{"channel": "never", "timeout": 0.3},
		"wait-for timeout: channel 'never' was not signalled within 0.3s", "[timeout]")
	if n := e.waitClients("never"); n != 0 {
		t.Errorf("%d wait-for clients left after the timeout, want 0", n)
	}
	e.fails("wait_for_channel", map[string]any{"channel": "x", "timeout": 0}, "timeout must be positive")
	e.fails("wait_for_channel", map[string]any{"channel": "x", "timeout": "soon"}, "argument timeout: want number")

	// The timeout is clamped to the ceiling, not refused.
	capped := newEnv(t, Mutating, func(d *Deps) { d.MaxWait = time.Second })
	start := time.Now()
	capped.fails("wait_for_channel", map[string]any{"channel": "never", "timeout": 3600}, "not signalled within 1.0s")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("wait with a 1s ceiling took %v", d)
	}
}

func TestWaitForChannelCancelled(t *testing.T) {
	e := newEnv(t, Mutating)
	ctx, cancel := context.WithCancel(context.Background())
	done := e.waitAsync(ctx, map[string]any{"channel": "cancel.me", "timeout": 20})
	e.blockedOn("cancel.me")
	cancel()
	<-done
	tmuxtest.WaitFor(t, 5*time.Second, "the wait-for client to be killed", func() bool { return e.waitClients("cancel.me") == 0 })
	e.ok("list_sessions", nil, nil)
}

// TestWaitForChannelServerGone checks that a wait ended by the server's
// death is never reported as a signal. Which error comes depends on races
// the test cannot order: the waiting client exits 0 (as for a signal: the
// PID check catches it), fails with "server exited unexpectedly", or, if
// it had not connected yet, finds no server.
func TestWaitForChannelServerGone(t *testing.T) {
	tests := []struct {
		name string
		kill func(e *env, pid int)
	}{
		{"kill-server", func(e *env, _ int) { e.tmux("kill-server") }},
		{"SIGTERM", func(_ *env, pid int) { syscall.Kill(pid, syscall.SIGTERM) }},
		{"SIGKILL", func(_ *env, pid int) { syscall.Kill(pid, syscall.SIGKILL) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Mutating)
			pid := e.tm.PID()
			done := e.waitAsync(context.Background(), map[string]any{"channel": "gone", "timeout": 20})
			e.blockedOn("gone")
			tt.kill(e, pid)
			res := <-done
			got := text(res)
			if !res.IsError || !(strings.HasPrefix(got, "wait-for returned for channel 'gone' but the tmux server is no longer running, so the channel was probably never signalled") ||
				strings.HasPrefix(got, "wait-for failed for channel 'gone': ")) {
				t.Errorf("wait_for_channel after %s = %q (error %v), want an error saying the server went away", tt.name, got, res.IsError)
			}
		})
	}
}

// TestSameServer checks the check behind a wait that tmux ended with
// status 0: the same server still up, none, or another one on the socket.
func TestSameServer(t *testing.T) {
	e := newEnv(t, Mutating)
	ctx := context.Background()
	srv, err := e.sup.Default(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first := e.tm.PID()
	check := func(pid int, want bool) {
		t.Helper()
		if got, err := sameServer(ctx, srv, pid); err != nil || got != want {
			t.Errorf("sameServer(%d) = %v, %v; want %v", pid, got, err, want)
		}
	}
	check(first, true)
	e.tmux("kill-server")
	tmuxtest.WaitFor(t, 5*time.Second, "the server to exit", func() bool { return !tmuxtest.Alive(first) })
	check(first, false)
	// Another server on the socket (started here, or by the supervisor's
	// recovery) is not the one the wait began on.
	second := e.tm.Start("again")
	check(first, false)
	check(second, true)
}

// TestWaitForChannelProgress checks that a wait whose request carries a
// progress token reports progress against its clamped limit.
func TestWaitForChannelProgress(t *testing.T) {
	e := newEnv(t, Mutating, func(d *Deps) { d.MaxWait = 2 * time.Second })
	c, n := legacyClient(t, e.srv)
	var req mcp.CallToolRequest
	req.Params.Name = "wait_for_channel"
	req.Params.Arguments = map[string]any{"channel": "slow", "timeout": 60}
	req.Params.Meta = &mcp.Meta{ProgressToken: "wait-1"}
	res, err := c.CallTool(context.Background(), req)
	if err != nil || !res.IsError || !strings.Contains(text(res), "not signalled within 2.0s") {
		t.Fatalf("wait_for_channel = %v %v, want a timeout after the 2s ceiling", err, res)
	}
	var got []note
	for _, x := range n.since(0) {
		if isProgress(x) {
			got = append(got, x)
		}
	}
	if len(got) == 0 {
		t.Fatalf("no progress notification during the wait:%s", n.describe(0))
	}
	if x := got[0]; x.params["progressToken"] != "wait-1" || x.params["total"] != float64(2) || !strings.Contains(x.Str("message"), "waiting for channel") {
		t.Errorf("progress %s, want token wait-1, total 2 and the wait named", x.raw)
	}
}
