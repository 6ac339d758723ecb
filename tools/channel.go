package tools

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// channelRe is libtmux-mcp's rule for wait-for channel names.
var channelRe = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

var pChannel = mcp.WithString("channel", mcp.Required())

func channelArg(p tooldef.Args) (string, error) {
	c := p.Str("channel")
	if !channelRe.MatchString(c) {
		return "", &toolError{msg: fmt.Sprintf("Invalid channel name: '%s'", clip(c)), class: "argument",
			hint: "Use 1-128 characters from A-Z a-z 0-9 _ . : -"}
	}
	return c, nil
}

// secondsText formats seconds as Python prints a float: 30.0, 0.5.
func secondsText(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// WaitForChannel blocks until a tmux wait-for channel is signalled.
func WaitForChannel(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("wait_for_channel", "Wait until a channel is signalled (signal_channel, tmux wait-for -S).",
		tooldef.Mutate, messageSchema,
		pChannel,
		mcp.WithNumber("timeout"),
		pSocket)
	return t, handleRequest(t, func(ctx context.Context, req mcp.CallToolRequest, p tooldef.Args) (*mcp.CallToolResult, error) {
		c, err := channelArg(p)
		if err != nil {
			return nil, err
		}
		timeout := 30.0
		if v, ok := p.Number("timeout"); ok {
			timeout = v
		}
		if !(timeout > 0) {
			return nil, &toolError{msg: "timeout must be positive", class: "argument"}
		}
		// Clamped, not refused, as in libtmux-mcp.
		eff := min(timeout, d.maxWait().Seconds())
		limit := time.Duration(math.Round(eff * float64(time.Second)))
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		before, err := srv.Info(ctx)
		if err != nil {
			return nil, err
		}
		deadline := time.Now().Add(limit)
		wctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		prog := startProgress(ctx, req, limit, "waiting for channel")
		defer prog.stop()
		// Never over the control connection: a blocking command there
		// would hold up every command behind it.
		err = srv.WaitForChannel(wctx, c)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case drive.PastDeadline(err, deadline) || errors.Is(err, tmux.ErrTimeout) && wctx.Err() != nil:
			return nil, &toolError{msg: fmt.Sprintf("wait-for timeout: channel '%s' was not signalled within %ss", c, secondsText(eff)),
				class: "timeout", hint: "Signal it with signal_channel (tmux wait-for -S), or wait again."}
		case err != nil:
			var ce *tmux.CommandError
			if errors.As(err, &ce) {
				return nil, &toolError{msg: fmt.Sprintf("wait-for failed for channel '%s': %s", c, strings.TrimSpace(ce.Stderr)),
					class: tmux.ClassName(err), hint: "Call server_health to see what happened to the server."}
			}
			return nil, err
		}
		// tmux exits 0 both for a signal and for a server that went away.
		if same, err := sameServer(ctx, srv, before.PID); err != nil {
			return nil, err
		} else if !same {
			return nil, &toolError{msg: fmt.Sprintf("wait-for returned for channel '%s' but the tmux server is no longer running, "+
				"so the channel was probably never signalled — tmux exits 0 for both. Re-check the work you were waiting on.", c),
				class: "server_exited", hint: "Call server_health for the cause."}
		}
		return message(fmt.Sprintf("Channel '%s' was signalled (timeout %ss)", c, secondsText(eff)))
	})
}

// sameServer reports whether the server with PID pid still answers on
// srv's socket: false when none answers, or another one (a restart). It
// never starts a server.
func sameServer(ctx context.Context, srv *supervisor.Server, pid int) (bool, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	now, err := srv.Alive(ctx)
	switch {
	case tmux.IsServerDown(err):
		return false, nil
	case err != nil:
		return false, err
	}
	return now == pid, nil
}

// SignalChannel wakes the waiters of a tmux wait-for channel.
func SignalChannel(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("signal_channel", "Signal a tmux wait-for channel (nobody waiting is fine).", tooldef.Mutate, messageSchema,
		pChannel, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		c, err := channelArg(p)
		if err != nil {
			return nil, err
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := srv.SignalChannel(ctx, c); err != nil {
			return nil, err
		}
		return message(fmt.Sprintf("Channel '%s' signalled", c))
	})
}
