package tmux

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/codec"
)

// The request FIFO of a Control: a command is checked and given a slot
// (prepare), queued and written as one line (send), and answered by the
// next flags=1 block the reader hands to complete, in the order written.
// A request whose caller gave up stays queued until its answer comes; the
// stall watchdog ends a connection whose oldest request goes unanswered
// for StallTimeout.

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
