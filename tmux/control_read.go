package tmux

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux/codec"
)

// The reading side of a Control: one goroutine always drains the
// client's stdout, hands answers to the request FIFO and delivers
// notifications; another answers %pause for watchers that want it.

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
