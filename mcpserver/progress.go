package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// progressEvery is how often a long call reports progress: well inside the
// 5 s a client with an idle timeout may wait between two messages.
const progressEvery = 2 * time.Second

// Progress sends notifications/progress for one long tool call, so that
// clients with idle timeouts keep waiting. Use it in any handler that may
// run for more than a second (wait_for_text, run_command, wait_for_channel
// and the like):
//
//	p := StartProgress(ctx, req, timeout, "waiting for text")
//	defer p.Stop()
//	select {
//	case <-ctx.Done(): // notifications/cancelled or the client gone: stop now
//		return nil, ctx.Err()
//	case <-found:
//	}
//
// It reports only when the request carries a progress token (_meta
// progressToken); otherwise it does nothing and costs nothing. It sends one
// notification at once and then one every two seconds until stop or ctx
// ends: progress is the seconds elapsed (it only grows, as the protocol
// requires), total the call's limit in seconds, and the message says both,
// e.g. "waiting for text: 4.0s of 60s". The message never holds arguments
// or pane text.
//
// Cancellation is the handler's part: mcp-go cancels the request context
// when the client sends notifications/cancelled, so every wait must select
// on ctx.Done() and return at once, leaving tmux as it was.
type Progress struct {
	stopOnce sync.Once
	quit     chan struct{}
	done     chan struct{}
}

// StartProgress starts reporting for the call req handled under ctx; limit
// is the longest the call may take (0: unknown, total is left out). what
// names the wait in the message. The returned Progress is never nil; call
// Stop when the wait ends.
func StartProgress(ctx context.Context, req mcp.CallToolRequest, limit time.Duration, what string) *Progress {
	p := &Progress{quit: make(chan struct{}), done: make(chan struct{})}
	srv := server.ServerFromContext(ctx)
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil || srv == nil {
		close(p.done)
		return p
	}
	token := req.Params.Meta.ProgressToken
	start := time.Now()
	send := func() {
		elapsed := time.Since(start)
		params := map[string]any{"progressToken": token, "progress": elapsed.Seconds()}
		msg := fmt.Sprintf("%s: %.1fs", what, elapsed.Seconds())
		if limit > 0 {
			params["total"] = limit.Seconds()
			msg += fmt.Sprintf(" of %gs", limit.Seconds())
		}
		params["message"] = msg
		// A full notification queue drops this one; the next tick retries.
		_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params)
	}
	go func() {
		defer close(p.done)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		send()
		for {
			select {
			case <-p.quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				send()
			}
		}
	}()
	return p
}

// Stop ends the reports and waits until none can follow.
func (p *Progress) Stop() {
	p.stopOnce.Do(func() { close(p.quit) })
	<-p.done
}
