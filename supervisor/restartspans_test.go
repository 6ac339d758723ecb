package supervisor

import (
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestRestartSpans: a death is a span from detection to recovery, with
// the restart and the restore as its children; supervisor decisions are
// events of the caller's span.
func TestRestartSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{Restorer: &restorer{}})
	rec := record(sup)
	srv := mustServer(t, sup)
	pane := tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "s", "exec cat"))

	ctx, parent := tp.Tracer("test").Start(testCtx(t), "caller")
	if _, err := srv.Capture(ctx, CaptureRequest{Pane: pane}); err != nil {
		t.Fatal(err)
	}
	parent.End()

	syscall.Kill(srv.Health().PID, syscall.SIGKILL) //nolint:errcheck
	rec.wait(t, 10*time.Second, "restored", isType(EventRestored))
	find := func(name string) (tracetest.SpanStub, bool) {
		for _, s := range exp.GetSpans() {
			if s.Name == name {
				return s, true
			}
		}
		return tracetest.SpanStub{}, false
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the death span to end", func() bool {
		_, ok := find("tmux server death")
		return ok
	})
	deathSpan, _ := find("tmux server death")
	// A restart may take more than one attempt (a start that fails on a
	// loaded machine is tried again), each a span under the death: the
	// restore is under the one that succeeded. The first start restores
	// too (with nothing to restore): take the restore under a restart.
	// EventRestored is announced before the restore's span ends (the gate
	// opens first): wait for the span.
	var restart, restore tracetest.SpanStub
	tmuxtest.WaitFor(t, 10*time.Second, "the restore span to end", func() bool {
		restarts := map[trace.SpanID]tracetest.SpanStub{}
		for _, s := range exp.GetSpans() {
			if s.Name == "tmux server restart" {
				restarts[s.SpanContext.SpanID()] = s
			}
		}
		for _, s := range exp.GetSpans() {
			if r, ok := restarts[s.Parent.SpanID()]; ok && s.Name == "tmux server restore" {
				restart, restore = r, s
				return true
			}
		}
		return false
	})
	for _, s := range exp.GetSpans() {
		if s.Name == "tmux server restart" && s.SpanContext.SpanID() != restart.SpanContext.SpanID() && s.Status.Code != codes.Error {
			t.Errorf("a restart attempt that did not restore, but did not fail either: %+v", s)
		}
	}
	attrs := map[attribute.Key]string{}
	for _, kv := range deathSpan.Attributes {
		attrs[kv.Key] = kv.Value.String()
	}
	if attrs["tmux.death.cause"] != string(death.CauseKilled) || attrs["tmux.recovered"] != "true" || attrs["tmux.recovery.action"] != "restart" {
		t.Errorf("death span attributes = %v, want cause killed, action restart, recovered", attrs)
	}
	if got, want := restart.Parent.SpanID(), deathSpan.SpanContext.SpanID(); got != want {
		t.Errorf("restart span's parent = %s, want the death span %s", got, want)
	}
	if got, want := restore.Parent.SpanID(), restart.SpanContext.SpanID(); got != want {
		t.Errorf("restore span's parent = %s, want the restart span %s", got, want)
	}

	caller, _ := find("caller")
	var events []string
	for _, e := range caller.Events {
		events = append(events, e.Name)
	}
	if !slices.Contains(events, "tmux.capture_proof") {
		t.Errorf("caller span events = %v, want tmux.capture_proof", events)
	}
}
