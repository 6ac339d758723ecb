package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/taskext"
)

// RecoverPanics turns a panic in a handler into a tool error result, so
// the server keeps serving and the agent sees what happened.
func RecoverPanics(log *slog.Logger) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
			defer func() {
				if r := recover(); r != nil {
					log.Error("tool panicked", "tool", req.Params.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
					res = ErrorResult(fmt.Sprintf("internal error in %s: panic: %v", req.Params.Name, r),
						"internal", "This is a tmux-mcp bug; the server keeps serving. Retry once or use another tool.")
					err = nil
				}
			}()
			return next(ctx, req)
		}
	}
}

// LogCalls logs one record per call: tool, outcome (ok, error, cancelled),
// error class, duration, and the task it became, if it became one. It
// runs inside the tasks layer, so a task's record comes at the end of its
// work and counts all of it. Arguments and results are never logged
// (they may hold keystrokes or pane text).
func LogCalls(log *slog.Logger) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			start := time.Now()
			res, err := next(ctx, req)
			attrs := []any{"tool", req.Params.Name, "duration_ms", float64(time.Since(start).Microseconds()) / 1000}
			if id := taskext.From(ctx).Task(); id != "" {
				attrs = append(attrs, "task_id", id)
			}
			switch {
			case ctx.Err() != nil && (err != nil || res != nil && res.IsError):
				// Cancelled (notifications/cancelled, tasks/cancel,
				// stop_job): the call's end is its caller's doing.
				log.Info("tool call", append(attrs, "outcome", "cancelled")...)
			case err != nil:
				log.Error("tool call failed", append(attrs, "err", err)...)
			case res != nil && res.IsError:
				class := ""
				if res.Meta != nil {
					class, _ = res.Meta.AdditionalFields["error_type"].(string)
				}
				log.Info("tool call", append(attrs, "outcome", "error", "error_type", class)...)
			default:
				log.Debug("tool call", append(attrs, "outcome", "ok")...)
			}
			return res, err
		}
	}
}

// drain tracks calls in flight. Once shutdown has begun, a call whose
// request context ends (the transport closing) keeps running for up to the
// drain bound, so in-flight tmux commands finish instead of being cut.
type drain struct {
	bound    time.Duration
	stopping atomic.Bool
	wg       sync.WaitGroup
}

func (g *drain) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		g.wg.Add(1)
		defer g.wg.Done()
		hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		stop := context.AfterFunc(ctx, func() {
			if !g.stopping.Load() {
				cancel()
				return
			}
			t := time.AfterFunc(g.bound, cancel)
			context.AfterFunc(hctx, func() { t.Stop() })
		})
		defer stop()
		return next(hctx, req)
	}
}

// wait waits for calls in flight, at most until ctx ends.
func (g *drain) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		g.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("tools: %w waiting for calls in flight", ctx.Err())
	}
}
