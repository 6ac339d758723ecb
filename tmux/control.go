package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/native"
)

// ControlOptions configures a control-mode connection.
type ControlOptions struct {
	// Exec supplies the socket and environment of the client, and the
	// server's message layout (learned from its version).
	Exec *Exec
	// Target is the session to attach to, e.g. "=__tmux_mcp" or "$3".
	Target string
	// Flags are the client flags passed with attach-session -f, e.g.
	// "no-output,ignore-size" for the command connection or
	// "ignore-size,pause-after=5" for a watcher. Ignored before tmux 3.2.
	Flags string
	// MaxInFlight bounds requests written but not yet answered; Run waits
	// for room (within its deadline). Default 64.
	MaxInFlight int
	// OnNotify, when set, receives every notification, in order, on the
	// reader goroutine. It must not block; it must not call Run.
	OnNotify func(Notification)
	// AutoContinue makes the connection answer %pause for a pane with
	// refresh-client -A '%N:continue' (watchers with pause-after).
	AutoContinue bool
	// NoStartServer passes tmux -N (3.2+) so that attaching never starts a
	// server: without it, attach-session against a stale socket starts a
	// fresh server that prints "no sessions" and exits (and removes the
	// stale socket file). Leave it false before tmux 3.2, which has no -N.
	NoStartServer bool
	// StallTimeout is how long the oldest request written may go
	// unanswered before the server is taken to be hung and the connection
	// is ended (the client is killed; Done closes; every request in flight
	// fails with a *ConnLostError whose reason is "<command> unanswered for
	// <duration>"). A caller whose own deadline passes sooner only abandons
	// its request and leaves the connection up. Requests are answered in
	// order, so a command that legitimately keeps the client's queue busy
	// for longer (if-shell without -b, say) needs a larger value. Default
	// DefaultStallTimeout.
	//
	// The stall reason does not end in "timed out": it matches
	// ErrConnectionLost, not ErrTimeout, since the callers it fails had
	// not reached their own deadlines.
	StallTimeout time.Duration
}

var _ Transport = (*Control)(nil)

// DefaultMaxInFlight is the MaxInFlight used when ControlOptions leaves it 0.
const DefaultMaxInFlight = 64

// DefaultStallTimeout is the StallTimeout used when ControlOptions leaves it
// 0.
const DefaultStallTimeout = 10 * time.Second

// closeGrace is how long Close waits for the client to leave after its stdin
// closes before it sends SIGKILL, and how long the reader may keep draining
// after the client process has exited.
const closeGrace = time.Second

// Control is one persistent control-mode client of tmux-mcp's own
// (package native): the server reads its commands from a pipe and writes the
// control stream to another. It implements Transport.
//
// Requests are written one command per line and matched FIFO to the flags=1
// blocks tmux returns. A reader goroutine always drains the client's stdout
// (a control client that stops reading stalls the panes of its session and
// can block the server's exit).
//
// The connection is shared by every caller, so one caller's deadline never
// ends it: a request whose context ends after it was written is abandoned
// (it stays queued, and its answer is read and dropped when it comes). Only
// a server that leaves the oldest request unanswered for StallTimeout is
// taken to be hung: the client is killed with SIGKILL and the connection is
// done. A watchdog timer, armed while requests are pending, checks this
// even when no caller is waiting.
type Control struct {
	opts   ControlOptions
	nc     *native.Control // the client's socket to the server (package native)
	stdin  *os.File        // write end of the client's stdin
	stdout *os.File        // read end of the client's stdout
	sem    chan struct{}

	wmu sync.Mutex // serialises enqueue+write so queue order is wire order

	mu         sync.Mutex
	pending    []*ctlRequest
	err        error // set once, when the connection ends
	closing    bool
	stall      *time.Timer // the stall watchdog, made on first use
	stallArmed bool        // stall is set to fire; true while pending is not empty
	answered   time.Time   // when the last flags=1 block arrived

	done       chan struct{} // closed when err is set
	ready      chan struct{} // closed after the attach block (or on death)
	readyErr   error         // the attach block's %error, if any
	readerDone chan struct{}
	waitDone   chan struct{}
	contDone   chan struct{}

	contMu    sync.Mutex
	contPanes []PaneID
	contWake  chan struct{}

	closeOnce sync.Once
	seqMu     sync.Mutex // held while a RunSequence takes its slots
}

type ctlRequest struct {
	args []string
	ch   chan ctlResult // buffered, 1
	sent time.Time      // when it was queued, just before its line was written
	// rest counts the requests written after this one in the same line
	// (RunSequence): tmux runs none of them when this one fails.
	rest int
}

type ctlResult struct {
	body  []byte
	isErr bool
	err   error
}

// DialControl connects a control client of its own (package native: no tmux
// client process) to the server and attaches it as `tmux -C
// attach-session -t <Target> [-f Flags]` would; it returns once the attach
// block has been read.
//
// It never starts a server: with no socket file the error matches
// ErrSocketMissing, with nobody listening ErrNoServer. If tmux rejects the attach
// (for example "can't find session"), the error is a *CommandError
// classified from tmux's message. Without a deadline on ctx, DefaultTimeout
// bounds the attach. Close the connection when done with it.
func DialControl(ctx context.Context, opts ControlOptions) (*Control, error) {
	if opts.Exec == nil {
		return nil, errors.New("tmux: dial control: no Exec in options")
	}
	if err := opts.Exec.Socket.Validate(); err != nil {
		return nil, fmt.Errorf("tmux: dial control: %w", err)
	}
	if opts.Target == "" {
		return nil, errors.New("tmux: dial control: no target session")
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.StallTimeout <= 0 {
		opts.StallTimeout = DefaultStallTimeout
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	attach := []string{"attach-session", "-t", opts.Target}
	if opts.Flags != "" {
		attach = append(attach, "-f", opts.Flags)
	}
	layout, err := opts.Exec.fdLayout(ctx)
	if err != nil {
		return nil, err
	}

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("tmux: dial control: stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("tmux: dial control: stdout pipe: %w", err)
	}
	nc, err := dialNativeControl(ctx, opts.Exec.socket(), attach, inR, outW, layout, opts.Exec.Env)
	// The server holds its own copies of the client's ends.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}

	c := &Control{
		opts:       opts,
		nc:         nc,
		stdin:      inW,
		stdout:     outR,
		sem:        make(chan struct{}, opts.MaxInFlight),
		done:       make(chan struct{}),
		ready:      make(chan struct{}),
		readerDone: make(chan struct{}),
		waitDone:   make(chan struct{}),
		contDone:   make(chan struct{}),
		contWake:   make(chan struct{}, 1),
	}
	go c.readLoop()
	go c.waitLoop()
	if opts.AutoContinue {
		go c.continueLoop()
	} else {
		close(c.contDone)
	}

	select {
	case <-c.ready:
	case <-ctx.Done():
		c.fail("attach timed out", true)
		c.Close()
		return nil, &CommandError{
			Args: attach, ExitCode: -1, Class: ErrTimeout, Transport: "control", cause: ctx.Err(),
		}
	}
	if c.readyErr != nil || c.Err() != nil {
		c.Close()
		if c.readyErr != nil {
			return nil, c.readyErr
		}
		msg := strings.TrimSpace(c.nc.ExitMessage())
		cerr := &CommandError{Args: attach, Stderr: msg, ExitCode: -1, Class: Classify(msg), Transport: "control", cause: c.Err()}
		if msg == "" {
			cerr.Class = ErrConnectionLost
		}
		return nil, cerr
	}
	return c, nil
}

// Kind returns "control".
func (c *Control) Kind() string { return "control" }

// Close ends the client and waits for every goroutine the connection
// started. It closes the client's stdin, on which the server lets the
// client go, and drops its socket if the server has not done so within
// a second. It is safe to call more than once and concurrently.
func (c *Control) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		// Closing stdin ends the client (and unblocks a write stuck on a
		// hung server).
		c.stdin.Close()
		select {
		case <-c.waitDone:
		case <-time.After(closeGrace):
			c.kill()
			<-c.waitDone
		}
		<-c.readerDone
		c.fail("closed", false)
		<-c.contDone
	})
	return nil
}

// Done is closed when the connection has ended for any reason.
func (c *Control) Done() <-chan struct{} { return c.done }

// Err returns nil while the connection is up, then a *ConnLostError.
func (c *Control) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// LastAnswer returns when the server last answered a command on this
// connection (an abandoned one included), or the zero time. A server
// whose answers keep arriving is working through the commands queued
// before the newest, however long that one waits.
func (c *Control) LastAnswer() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.answered
}

// fail ends the connection once: it records why, closes Done, and fails every
// pending request. With kill it also sends SIGKILL to the client and closes
// its stdin, which releases a write blocked on a server that does not read.
func (c *Control) fail(reason string, kill bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		if kill {
			c.kill()
		}
		return
	}
	if c.closing {
		reason = "closed"
	}
	c.err = &ConnLostError{Reason: reason}
	pending := c.pending
	c.pending = nil
	if c.stall != nil {
		c.stall.Stop()
		c.stallArmed = false
	}
	close(c.done)
	c.mu.Unlock()
	for _, r := range pending {
		r.ch <- ctlResult{err: c.err}
		<-c.sem
	}
	if kill {
		c.kill()
		c.stdin.Close() //nolint:errcheck // closed again by waitLoop and Close
	}
}

func (c *Control) kill() {
	go c.nc.Close()
}

// serverLost reports whether the client's socket closed (within
// closeGrace) without the server telling the client to leave.
func (c *Control) serverLost() bool {
	select {
	case <-c.nc.Done():
		return c.nc.Lost()
	case <-time.After(closeGrace):
		return false
	}
}

// waitLoop waits for the client's socket to close (the server let the
// client go, or died, or kill dropped it). The reader then gets a moment
// to drain what is left (a stopped server never closes the stdout pipe),
// then its pipe is closed to release it.
func (c *Control) waitLoop() {
	<-c.nc.Done()
	c.nc.Close()
	close(c.waitDone)
	select {
	case <-c.readerDone:
	case <-time.After(closeGrace):
		c.stdout.Close()
		<-c.readerDone
	}
	c.stdin.Close()
}
