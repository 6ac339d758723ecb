package tmux

import (
	"context"
	"errors"
	"testing"
	"time"
)

// gateCtx returns a context that ends with the test or after d.
func gateCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// awaitGate waits until cond, read under the gate's lock, holds.
func awaitGate(t *testing.T, g *handshakeGate, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g.mu.Lock()
		ok := cond()
		g.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// taken runs take in the background and returns a channel that yields
// its release func once it gets the gate.
func taken(ctx context.Context, take func(context.Context) (func(), error)) <-chan func() {
	ch := make(chan func(), 1)
	go func() {
		if release, err := take(ctx); err == nil {
			ch <- release
		}
	}()
	return ch
}

func TestHandshakeGateOffNeverWaits(t *testing.T) {
	var g handshakeGate
	ctx := gateCtx(t, 5*time.Second)
	dialRelease, err := g.dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cmdRelease, err := g.command(ctx)
	if err != nil {
		t.Fatalf("command beside a dial with the gate off: %v", err)
	}
	other, err := g.dial(ctx)
	if err != nil {
		t.Fatalf("second dial with the gate off: %v", err)
	}
	dialRelease()
	cmdRelease()
	other()
}

func TestHandshakeGateDialWaitsForCommandsAndLeaving(t *testing.T) {
	var g handshakeGate
	g.setOn(true)
	ctx := gateCtx(t, 10*time.Second)
	cmd, err := g.command(ctx)
	if err != nil {
		t.Fatal(err)
	}
	left := g.leave()
	dial := taken(ctx, g.dial)
	awaitGate(t, &g, "the dial to wait", func() bool { return g.waiting == 1 })
	// A command arriving while the dial waits waits behind it.
	later := taken(ctx, g.command)
	select {
	case <-dial:
		t.Fatal("a dial got the gate while a command was in flight")
	case <-later:
		t.Fatal("a command overtook a waiting dial")
	case <-time.After(50 * time.Millisecond):
	}
	cmd()
	select {
	case <-dial:
		t.Fatal("a dial got the gate while a client was leaving")
	case <-time.After(50 * time.Millisecond):
	}
	left()
	var release func()
	select {
	case release = <-dial:
	case <-ctx.Done():
		t.Fatal("the dial never got the gate")
	}
	select {
	case <-later:
		t.Fatal("a command ran during a dial")
	case <-time.After(50 * time.Millisecond):
	}
	release()
	select {
	case r := <-later:
		r()
	case <-ctx.Done():
		t.Fatal("the command never ran after the dial")
	}
}

func TestHandshakeGateWaitsEndWithContext(t *testing.T) {
	var g handshakeGate
	g.setOn(true)
	cmd, err := g.command(gateCtx(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cmd()
	if _, err := g.dial(gateCtx(t, 30*time.Millisecond)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("dial behind a command, ctx ended: err = %v, want %v", err, context.DeadlineExceeded)
	}
	// The abandoned dial no longer holds commands back.
	other, err := g.command(gateCtx(t, 5*time.Second))
	if err != nil {
		t.Fatalf("command after an abandoned dial: %v", err)
	}
	other()

}

func TestGated(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"new-session", "-d"}, true},
		{[]string{"kill-session", "-t", "=x"}, true},
		{[]string{"wait-for", "ch"}, false},
		{[]string{"wait", "ch"}, false},
	}
	for _, tt := range tests {
		if got := gated(tt.args); got != tt.want {
			t.Errorf("gated(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
