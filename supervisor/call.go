package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// readOnly lists commands that change nothing a capture could see.
var readOnly = map[string]bool{
	"list-sessions": true, "ls": true, "list-windows": true, "lsw": true, "list-panes": true, "lsp": true,
	"list-clients": true, "lsc": true, "list-buffers": true, "lsb": true, "display-message": true, "display": true,
	"capture-pane": true, "capturep": true, "show-options": true, "show": true, "show-window-options": true,
	"showw": true, "show-environment": true, "showenv": true, "show-hooks": true, "has-session": true, "has": true,
	"show-buffer": true, "showb": true, "list-keys": true, "lsk": true, "list-commands": true, "lscm": true,
	"show-messages": true, "showmsgs": true, "server-info": true, "info": true,
}

// do runs one tmux command under supervision and returns its stdout: health
// gate, resource gate for commands that create panes, the server's token
// bucket, the in-flight bound, the transport with a deadline, events.
// Outside the supervisor commands are typed methods (cmd_*.go); the
// journal replays its restore plans through Replay.
func (s *Server) do(ctx context.Context, args ...string) ([]byte, error) {
	if len(args) == 0 {
		return nil, errors.New("supervisor: empty tmux command")
	}
	if err := s.gateFor(ctx, args[0]); err != nil {
		return nil, err
	}
	if createsPane(args) {
		if err := s.resourceGate(ctx); err != nil {
			return nil, err
		}
	}
	out, err := s.run(ctx, args)
	if !readOnly[args[0]] {
		// Conservative: anything that may change what panes show drops
		// cached captures.
		s.fresh.Changed()
	}
	if args[0] == "kill-server" && (err == nil || tmux.IsServerDown(err)) {
		s.mu.Lock()
		s.killRequested, s.killSent = true, true
		s.mu.Unlock()
	}
	return out, err
}

// run sends one command through call.
func (s *Server) run(ctx context.Context, args []string) ([]byte, error) {
	return s.call(ctx, args[0], func(ctx context.Context, tr tmux.Transport) ([]byte, error) {
		return tr.Run(ctx, args...)
	})
}

// call is the part of every tmux call below the gates: the server's token
// bucket, the in-flight bound, the deadline, a span, the transport, events.
// name is the tmux command name (never its arguments); f does the work on
// the transport chosen for this call.
func (s *Server) call(ctx context.Context, name string, f func(context.Context, tmux.Transport) ([]byte, error)) ([]byte, error) {
	return s.callOn(ctx, name, nil, f)
}

// callOn is call on transport tr (nil: the one the client picks). A call
// forced onto exec may block inside tmux for as long as its caller allows
// (wait-for): it takes a slot of its own bound instead of one of the
// in-flight slots every other call needs, and its timeout is no sign of
// an ailing server.
func (s *Server) callOn(ctx context.Context, name string, tr tmux.Transport, f func(context.Context, tmux.Transport) ([]byte, error)) ([]byte, error) {
	return s.callVia(ctx, name, tr, func(ctx context.Context, tr tmux.Transport) ([]byte, tmux.Transport, error) {
		out, err := f(ctx, tr)
		return out, tr, err
	})
}

// callVia is callOn for work that may take another transport than the
// one chosen (a capture before tmux 3.6 goes over exec while the control
// connection is up): f returns the transport that carried the command,
// which the span's tmux.transport and the event name.
func (s *Server) callVia(ctx context.Context, name string, tr tmux.Transport, f func(context.Context, tmux.Transport) ([]byte, tmux.Transport, error)) ([]byte, error) {
	slots, blocking := s.inflight, tr != nil
	if blocking {
		slots = s.blocking
	}
	ok, wait := s.serverRate.Reserve("server", s.cfg.RateWait)
	if !ok {
		s.rateLimited.Add(1)
		s.bus.emit(Event{Type: EventRateLimited, Socket: s.sock, Detail: "server"})
		spanEvent(ctx, "tmux.rate_limited", attribute.String("tmux.command", name), attribute.String("tmux.rate_limit.scope", "server"),
			attribute.Int64("tmux.retry_after_ms", wait.Milliseconds()))
		return nil, &RateLimitedError{RetryAfter: wait, Scope: "server"}
	}
	if wait > 0 {
		spanEvent(ctx, "tmux.rate_wait", attribute.String("tmux.command", name), attribute.Int64("tmux.wait_ms", wait.Milliseconds()))
		if err := sleepCtx(ctx, wait); err != nil {
			return nil, err
		}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.CommandTimeout)
		defer cancel()
	}
	if err := ctx.Err(); err != nil {
		return nil, queueError(name, err)
	}
	select {
	case slots <- struct{}{}:
		defer func() { <-slots }()
	case <-ctx.Done():
		return nil, queueError(name, ctx.Err())
	}
	if tr == nil {
		tr = s.client.Transport()
	}
	ctx, span := s.tracer.Start(ctx, "tmux "+name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("tmux.command", name), attribute.String("tmux.socket", s.sock.String())))
	start := s.now()
	out, via, err := f(ctx, tr)
	dur := s.now().Sub(start)
	if via == nil {
		via = tr
	}
	class := tmux.ClassName(err)
	span.SetAttributes(attribute.String("tmux.transport", via.Kind()), attribute.Int("tmux.output_bytes", len(out)),
		attribute.Bool("tmux.cache_hit", false), attribute.Bool("tmux.rate_limited", wait > 0))
	if err != nil {
		span.SetAttributes(attribute.String("tmux.error_class", class))
		span.SetStatus(codes.Error, class)
	}
	span.End()
	s.commands.Add(1)
	s.meter.add(start)
	s.bus.emit(Event{Type: EventCommand, Socket: s.sock, Command: name, Transport: via.Kind(), Duration: dur, ErrClass: class})
	if err != nil && (tmux.IsServerDown(err) || (!blocking && errors.Is(err, tmux.ErrTimeout))) {
		s.nudge()
	} else if s.socketMoved() {
		s.nudge()
	}
	return out, err
}

// socketMoved reports whether the socket file is gone or is another file
// than the one the server was adopted with. A call over the control
// connection still succeeds when the socket was deleted, while every other
// client of the server is refused: one stat a call (about a microsecond)
// lets the monitor bring the socket back at the first call, not at its
// next probe tick.
func (s *Server) socketMoved() bool {
	s.mu.Lock()
	up, want := s.state == StateUp, s.id.sockIno
	s.mu.Unlock()
	return up && want != 0 && proc.SocketInode(s.sock.ResolvedPath()) != want
}

// spanEvent records a supervisor decision as an event of the caller's span
// (the MCP request's, when there is one): what was decided and the
// figures behind it, never arguments or pane text.
func spanEvent(ctx context.Context, name string, attrs ...attribute.KeyValue) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent(name, trace.WithAttributes(attrs...))
	}
}

// queueError is the error of a call whose context ended before it was sent:
// a timeout for a deadline, the cancellation itself otherwise.
func queueError(name string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("tmux %s: waited for a free slot until the deadline: %w", name, tmux.ErrTimeout)
	}
	return fmt.Errorf("tmux %s: %w", name, err)
}

// query runs a typed query through call.
func query[T any](ctx context.Context, s *Server, name string, f func(context.Context) (T, error)) (T, error) {
	var res T
	if err := s.gateFor(ctx, name); err != nil {
		return res, err
	}
	_, err := s.call(ctx, name, func(ctx context.Context, _ tmux.Transport) ([]byte, error) {
		var err error
		res, err = f(ctx)
		return nil, err
	})
	return res, err
}

// nudge asks the monitor to check the server now.
func (s *Server) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// callCapture is call for capture-pane: the capture, and the pane state
// read just after it in the same round trip (tmux.Client.CaptureThen),
// over the transport the capture takes on this version.
func (s *Server) callCapture(ctx context.Context, opts tmux.CaptureOptions, then string) (out, state []byte, err error) {
	out, err = s.callVia(ctx, "capture-pane", nil, func(ctx context.Context, _ tmux.Transport) ([]byte, tmux.Transport, error) {
		out, st, via, err := s.client.CaptureThen(ctx, opts, then)
		state = st
		return out, via, err
	})
	return out, state, err
}
