package tmux

import (
	"context"
	"errors"
	"sync"
)

// handshakeGate keeps this process's own commands and control clients
// from meeting a control client of ours that is still identifying itself,
// on servers that crash there (Capabilities.IdentifyingClientNotified,
// tmux 3.2a-3.6b).
//
// A control client sends tmux its identity in several messages; the
// server reads them over more than one turn of its event loop (the file
// descriptors it passes end a read). From the first (the client's flags,
// CLIENT_CONTROL) to the last (MSG_IDENTIFY_DONE, control_start) the
// client has no control state, and tmux before 3.7 writes session
// notifications to it all the same: a session created, closed, renamed or
// switched, a pane selected or put in copy mode, a paste buffer changed,
// an attached client leaving. control_write then dereferences NULL and
// the server dies of SIGSEGV (seen in seconds with a loop attaching
// control clients beside a loop creating and killing sessions).
//
// The gate is shared by every transport of one server (it lives in its
// Exec): a command, over exec or control, holds it shared until answered;
// a dial holds it alone from the spawn of its client to the attach
// block, which tmux sends after identification; and a control client
// that is leaving (its %exit read or Close called) counts as leaving
// until its process has exited, since the server announces a departure
// (client-detached) to every control client. A dial waits for commands in
// flight and for clients leaving; commands arriving meanwhile wait for
// the dial. What it cannot cover: another process (a person's tmux,
// another program) changing sessions while one of our clients
// identifies, a command abandoned at its deadline and answered later,
// and a departure tmux-mcp does not see coming (a client killed).
//
// Off (the zero value) it costs two uncontended lock operations per
// command; it is turned on when the server's version is learned.
type handshakeGate struct {
	mu      sync.Mutex
	on      bool
	active  int // commands in flight
	leaving int // control clients leaving, not yet exited
	dialing bool
	waiting int           // dials waiting for the gate: new commands wait behind them
	changed chan struct{} // closed and replaced when any count falls
}

// setOn turns the gate on or off.
func (g *handshakeGate) setOn(on bool) {
	g.mu.Lock()
	g.on = on
	g.signalLocked()
	g.mu.Unlock()
}

// signalLocked wakes every waiter. Callers hold mu.
func (g *handshakeGate) signalLocked() {
	if g.changed != nil {
		close(g.changed)
		g.changed = nil
	}
}

// waitLocked returns the channel closed at the next change. Callers hold mu.
func (g *handshakeGate) waitLocked() <-chan struct{} {
	if g.changed == nil {
		g.changed = make(chan struct{})
	}
	return g.changed
}

// command waits until no dial holds or waits for the gate, and holds it
// shared; the returned func releases it. It fails only when ctx ends.
func (g *handshakeGate) command(ctx context.Context) (func(), error) {
	for {
		g.mu.Lock()
		if !g.on || (!g.dialing && g.waiting == 0) {
			counted := g.on
			if counted {
				g.active++
			}
			g.mu.Unlock()
			if !counted {
				return func() {}, nil
			}
			return sync.OnceFunc(func() {
				g.mu.Lock()
				g.active--
				g.signalLocked()
				g.mu.Unlock()
			}), nil
		}
		ch := g.waitLocked()
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// dial waits until no command is in flight, no client is leaving and no
// other dial holds the gate, and holds it alone; the returned func
// releases it. It fails only when ctx ends.
func (g *handshakeGate) dial(ctx context.Context) (func(), error) {
	g.mu.Lock()
	g.waiting++
	for g.on && (g.dialing || g.active > 0 || g.leaving > 0) {
		ch := g.waitLocked()
		g.mu.Unlock()
		select {
		case <-ch:
			g.mu.Lock()
		case <-ctx.Done():
			g.mu.Lock()
			g.waiting--
			g.signalLocked()
			g.mu.Unlock()
			return nil, ctx.Err()
		}
	}
	g.waiting--
	if !g.on {
		g.signalLocked()
		g.mu.Unlock()
		return func() {}, nil
	}
	g.dialing = true
	g.mu.Unlock()
	return sync.OnceFunc(func() {
		g.mu.Lock()
		g.dialing = false
		g.signalLocked()
		g.mu.Unlock()
	}), nil
}

// leave counts a control client as leaving; the returned func, called
// once its process has exited, ends that.
func (g *handshakeGate) leave() func() {
	g.mu.Lock()
	g.leaving++
	g.mu.Unlock()
	return sync.OnceFunc(func() {
		g.mu.Lock()
		g.leaving--
		g.signalLocked()
		g.mu.Unlock()
	})
}

// gated reports whether a command holds the gate while it runs: every
// command but wait-for, which may wait inside tmux for minutes (a dial
// would wait behind it, and every command behind the dial) and notifies
// no one.
func gated(args []string) bool {
	return len(args) == 0 || (args[0] != "wait-for" && args[0] != "wait")
}

// gateError is the error of a command whose ctx ended while it waited for
// the gate: a timeout, or a cancelled command.
func gateError(args []string, transport string, err error) error {
	class := ErrTimeout
	if errors.Is(err, context.Canceled) {
		class = ErrCommand
	}
	return &CommandError{Args: args, ExitCode: -1, Class: class, Transport: transport, cause: err}
}
