package tmux

import (
	"context"
	"errors"
	"fmt"
)

// Several commands over one Control: pipelined (written back to back,
// answered one by one) or as one command list that tmux runs in order
// with nothing between them.

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
