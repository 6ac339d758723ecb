package tmux

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/codec"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/native"
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

// Run sends one command and returns its output block: the block's lines,
// each followed by "\n" (the same shape as the exec transport's stdout).
// Without a deadline on ctx, DefaultTimeout applies. A command that misses
// its deadline returns a *CommandError matching ErrTimeout (and wrapping
// context.DeadlineExceeded); one whose ctx is cancelled returns a
// *CommandError wrapping context.Canceled. Either way the connection stays
// up: the command may still run, and its answer is dropped when it comes
// (see StallTimeout for a server that never answers). A command tmux
// rejects returns a *CommandError classified from the %error block's text.
// After the connection has ended Run returns a *ConnLostError.
func (c *Control) Run(ctx context.Context, args ...string) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	// Nothing has been written while prepare waits for room, so running out
	// of time there does not spoil the connection.
	args, err := c.prepare(ctx, args)
	if err != nil {
		return nil, err
	}
	req := &ctlRequest{args: args, ch: make(chan ctlResult, 1)}
	if err := c.send(ctx, req); err != nil {
		return nil, err
	}
	return c.wait(ctx, req)
}

// wait waits for req's answer within ctx.
func (c *Control) wait(ctx context.Context, req *ctlRequest) ([]byte, error) {
	args := req.args
	select {
	case res := <-req.ch:
		return c.result(req, res)
	case <-ctx.Done():
	}
	// The answer may have arrived at the same moment.
	select {
	case res := <-req.ch:
		return c.result(req, res)
	default:
	}
	// Abandon the request: it stays queued, so that its answer, when it
	// comes, is read and dropped and the FIFO stays in step; its slot is
	// freed then. Other callers share the connection, so one caller's
	// deadline does not end it, unless the server is really not answering.
	c.checkStall()
	return nil, c.ctxError(args, ctx.Err())
}

// Pipeline sends cmds back to back, without waiting for each answer, and
// then waits for all of them: one round trip instead of len(cmds). tmux
// runs them in the order written. outs[i] and errs[i] are the i-th
// command's output and error; a command that could not be sent has an
// error and so have all after it (they were not sent).
func (c *Control) Pipeline(ctx context.Context, cmds ...[]string) (outs [][]byte, errs []error) {
	outs, errs = make([][]byte, len(cmds)), make([]error, len(cmds))
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	reqs := make([]*ctlRequest, 0, len(cmds))
	for i, args := range cmds {
		args, err := c.prepare(ctx, args)
		if err == nil {
			req := &ctlRequest{args: args, ch: make(chan ctlResult, 1)}
			if err = c.send(ctx, req); err == nil {
				reqs = append(reqs, req)
				continue
			}
		}
		for j := i; j < len(cmds); j++ {
			errs[j] = err
		}
		break
	}
	for i, req := range reqs {
		outs[i], errs[i] = c.wait(ctx, req)
	}
	return outs, errs
}

// RunSequence runs cmds as one command list: tmux runs them in order, with
// no other client's command between them, and stops at the first that
// fails. It returns their output, one after another; the error is the
// first failure's.
func (c *Control) RunSequence(ctx context.Context, cmds ...[]string) ([]byte, error) {
	if len(cmds) == 0 {
		return nil, errors.New("tmux: control run: no command")
	}
	if len(cmds) > cap(c.sem) {
		return nil, fmt.Errorf("tmux: control run: %d commands in one list, more than the %d in flight allowed", len(cmds), cap(c.sem))
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	// One sequence at a time takes its slots, so that two sequences each
	// holding some cannot wait for each other's.
	reqs := make([]*ctlRequest, 0, len(cmds))
	c.seqMu.Lock()
	for _, args := range cmds {
		args, err := c.prepare(ctx, args)
		if err != nil {
			c.seqMu.Unlock()
			for range reqs {
				<-c.sem
			}
			return nil, err
		}
		reqs = append(reqs, &ctlRequest{args: args, ch: make(chan ctlResult, 1)})
	}
	c.seqMu.Unlock()
	if err := c.send(ctx, reqs...); err != nil {
		return nil, err
	}
	var out []byte
	for _, req := range reqs {
		b, err := c.wait(ctx, req)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

// prepare checks args, makes them literal (literalArgs) and takes a slot
// for one request. It returns the arguments to send.
func (c *Control) prepare(ctx context.Context, args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, errors.New("tmux: control run: no command")
	}
	if err := codec.ValidCommandName(args[0]); err != nil {
		return nil, err
	}
	args, err := literalArgs(args)
	if err != nil {
		return nil, err
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	select {
	case c.sem <- struct{}{}:
		return args, nil
	case <-ctx.Done():
		return nil, c.ctxError(args, ctx.Err())
	case <-c.done:
		return nil, c.Err()
	}
}

// send queues reqs and writes them as one line, separated by ";" (one
// command list, which tmux runs in order with no other client's command
// between them). The queue order is the write order.
func (c *Control) send(ctx context.Context, reqs ...*ctlRequest) error {
	var b strings.Builder
	for i, r := range reqs {
		if i > 0 {
			b.WriteString(" ; ")
		}
		b.WriteString(codec.Quote(r.args))
		r.rest = len(reqs) - 1 - i
	}
	b.WriteByte('\n')
	line := b.String()
	req := reqs[0]
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		for range reqs {
			<-c.sem
		}
		return err
	}
	now := time.Now()
	for _, r := range reqs {
		r.sent = now
		c.pending = append(c.pending, r)
	}
	c.armStallLocked()
	c.mu.Unlock()

	if dl, ok := ctx.Deadline(); ok {
		c.stdin.SetWriteDeadline(dl) //nolint:errcheck // pipes support deadlines
	}
	n, err := io.WriteString(c.stdin, line)
	if err != nil {
		timedOut := errors.Is(err, os.ErrDeadlineExceeded)
		if timedOut && n == 0 && c.unqueue(reqs) {
			// Nothing was written (the pipe stayed full until the
			// deadline): the stream is intact and nothing is owed.
			return c.ctxError(req.args, context.DeadlineExceeded)
		}
		// A partial line would corrupt whatever is written next.
		reason := "write failed: " + err.Error()
		if timedOut {
			reason = req.args[0] + " timed out writing the command"
		}
		c.fail(reason, true)
		if timedOut {
			return c.ctxError(req.args, context.DeadlineExceeded)
		}
		return c.Err()
	}
	return nil
}

// unqueue takes back reqs, the last requests queued, whose line was not
// written, and frees their slots. It reports false when the connection
// has ended meanwhile (fail has already failed them and freed the slots).
func (c *Control) unqueue(reqs []*ctlRequest) bool {
	c.mu.Lock()
	n, k := len(c.pending), len(reqs)
	if c.err != nil || n < k || c.pending[n-1] != reqs[k-1] {
		c.mu.Unlock()
		return false
	}
	clear(c.pending[n-k:])
	c.pending = c.pending[:n-k]
	c.mu.Unlock()
	for range reqs {
		<-c.sem
	}
	return true
}

// armStallLocked sets the stall watchdog to fire when the oldest pending
// request reaches StallTimeout, unless it is set already (then it fires no
// later than that: requests only ever leave the front of the queue). c.mu
// must be held and pending must not be empty.
func (c *Control) armStallLocked() {
	if c.stallArmed {
		return
	}
	c.stallArmed = true
	d := time.Until(c.pending[0].sent.Add(c.opts.StallTimeout))
	if c.stall == nil {
		c.stall = time.AfterFunc(d, c.stallFired)
	} else {
		c.stall.Reset(d)
	}
}

// stallFired is the stall watchdog: it ends the connection when the oldest
// request has gone unanswered for StallTimeout, and otherwise sets itself
// for the new oldest request, if any.
func (c *Control) stallFired() {
	c.mu.Lock()
	c.stallArmed = false
	if c.err != nil || len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	reason := c.stalledLocked(time.Now())
	if reason == "" {
		c.armStallLocked()
	}
	c.mu.Unlock()
	if reason != "" {
		c.fail(reason, true)
	}
}

// checkStall ends the connection when the oldest request has gone
// unanswered for StallTimeout.
func (c *Control) checkStall() {
	c.mu.Lock()
	reason := ""
	if c.err == nil && len(c.pending) > 0 {
		reason = c.stalledLocked(time.Now())
	}
	c.mu.Unlock()
	if reason != "" {
		c.fail(reason, true)
	}
}

// stalledLocked returns the reason to end the connection when the oldest
// pending request has been outstanding for StallTimeout at now, else "".
// c.mu must be held and pending must not be empty.
func (c *Control) stalledLocked(now time.Time) string {
	r := c.pending[0]
	age := now.Sub(r.sent)
	if age < c.opts.StallTimeout {
		return ""
	}
	return fmt.Sprintf("%s unanswered for %v", r.args[0], age.Round(time.Millisecond))
}

func (c *Control) result(req *ctlRequest, res ctlResult) ([]byte, error) {
	if res.err != nil {
		return nil, res.err
	}
	if res.isErr {
		msg := strings.TrimRight(string(res.body), "\n")
		return res.body, &CommandError{
			Args: req.args, Stderr: msg, ExitCode: 1, Class: Classify(msg), Transport: "control",
		}
	}
	return res.body, nil
}

func (c *Control) ctxError(args []string, err error) error {
	cerr := &CommandError{Args: args, ExitCode: -1, Class: ErrTimeout, Transport: "control", cause: err}
	if errors.Is(err, context.Canceled) {
		cerr.Class = ErrCommand
	}
	return cerr
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

// readLoop is the reader goroutine: it always drains stdout, completes
// requests and delivers notifications.
func (c *Control) readLoop() {
	defer close(c.readerDone)
	p := codec.NewParser(c.stdout)
	readySent := false
	markReady := func() {
		if !readySent {
			readySent = true
			close(c.ready)
		}
	}
	var exitReason *string
	for {
		ev, err := p.Next()
		if err != nil {
			reason := "EOF"
			if !errors.Is(err, io.EOF) {
				reason = "read: " + err.Error()
				if errors.Is(err, os.ErrClosed) {
					reason = "client exited"
				}
			}
			if exitReason != nil {
				reason = *exitReason
			} else if c.serverLost() {
				// What tmux's own client says when its server goes away
				// without telling it.
				reason = "server exited unexpectedly"
			}
			c.fail(reason, false)
			markReady()
			c.stdout.Close()
			return
		}
		switch ev.Kind {
		case codec.EventBlock:
			if ev.Flags != "1" {
				// The attach block and hook output: not ours.
				if !readySent && ev.IsErr {
					msg := strings.TrimRight(string(ev.Body), "\n")
					c.readyErr = &CommandError{
						Args: []string{"attach-session", "-t", c.opts.Target}, Stderr: msg,
						ExitCode: 1, Class: Classify(msg), Transport: "control",
					}
				}
				markReady()
				continue
			}
			markReady()
			c.complete(ctlResult{body: ev.Body, isErr: ev.IsErr})
		case codec.EventNotify:
			n := ParseNotification(ev.Line)
			if n.Type == NotifyPause && c.opts.AutoContinue && n.Pane != "" {
				c.queueContinue(n.Pane)
			}
			if c.opts.OnNotify != nil {
				c.opts.OnNotify(n)
			}
		case codec.EventExit:
			r := ev.Reason
			if r == "" {
				r = "client exited"
			}
			exitReason = &r
			if c.opts.OnNotify != nil {
				c.opts.OnNotify(ParseNotification(ev.Line))
			}
		}
	}
}

// complete hands a flags=1 block to the oldest pending request.
func (c *Control) complete(res ctlResult) {
	c.mu.Lock()
	if len(c.pending) == 0 {
		// An answer nobody asked for: tmux printed a block for a line we
		// did not send. Nothing to match it to.
		c.mu.Unlock()
		return
	}
	r := c.pending[0]
	c.pending[0] = nil
	c.pending = c.pending[1:]
	c.answered = time.Now()
	// tmux skips the rest of a command list after a command fails: no
	// block will come for them.
	var skipped []*ctlRequest
	if res.isErr && r.rest > 0 {
		k := min(r.rest, len(c.pending))
		skipped = append(skipped, c.pending[:k]...)
		clear(c.pending[:k])
		c.pending = c.pending[k:]
	}
	c.mu.Unlock()
	r.ch <- res
	<-c.sem
	for _, s := range skipped {
		s.ch <- ctlResult{body: []byte("not run: " + r.args[0] + " before it in the same command list failed"), isErr: true}
		<-c.sem
	}
}

// queueContinue asks the continue goroutine to resume pane. It never blocks.
func (c *Control) queueContinue(pane PaneID) {
	c.contMu.Lock()
	for _, p := range c.contPanes {
		if p == pane {
			c.contMu.Unlock()
			return
		}
	}
	c.contPanes = append(c.contPanes, pane)
	c.contMu.Unlock()
	select {
	case c.contWake <- struct{}{}:
	default:
	}
}

// continueLoop sends refresh-client -A '%N:continue' for paused panes. It
// runs apart from the reader so that waiting for the answer never stops the
// reader.
func (c *Control) continueLoop() {
	defer close(c.contDone)
	for {
		select {
		case <-c.done:
			return
		case <-c.contWake:
		}
		c.contMu.Lock()
		panes := c.contPanes
		c.contPanes = nil
		c.contMu.Unlock()
		for _, p := range panes {
			ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
			c.Run(ctx, "refresh-client", "-A", string(p)+":continue") //nolint:errcheck // best effort; a dead connection reports itself
			cancel()
		}
	}
}
