package supervisor

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestSpansNameTheTransportUsed: a command's span and event name the
// transport that carried it, not the one the call chose: with the
// command connection up, a capture before tmux 3.6 (no ControlCapture)
// goes over exec, and says so; from 3.6 it goes over control. Other
// commands go over control.
func TestSpansNameTheTransportUsed(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{})
	rec := record(sup)
	srv := mustServer(t, sup)
	pane := tmux.PaneID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "s", "exec cat"))
	if got := srv.client.Transport().Kind(); got != "control" {
		t.Fatalf("the command transport is %s, want control", got)
	}
	if _, err := srv.Capture(testCtx(t), CaptureRequest{Pane: pane}); err != nil {
		t.Fatal(err)
	}
	v, err := tmux.ParseVersion(ts.MustTmux("display-message", "-p", "#{version}"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"new-session": "control", "capture-pane": "exec"}
	if v.Capabilities().ControlCapture {
		want["capture-pane"] = "control"
	}
	for cmd, kind := range want {
		var spans []string
		for _, s := range exp.GetSpans() {
			if s.Name != "tmux "+cmd {
				continue
			}
			for _, kv := range s.Attributes {
				if kv.Key == "tmux.transport" {
					spans = append(spans, kv.Value.AsString())
				}
			}
		}
		if len(spans) != 1 || spans[0] != kind {
			t.Errorf("tmux %s on tmux %s: spans' tmux.transport %v, want [%s]", cmd, v.Raw, spans, kind)
		}
		e := rec.wait(t, 10*time.Second, "the "+cmd+" event", func(e Event) bool { return e.Type == EventCommand && e.Command == cmd })
		if e.Transport != kind {
			t.Errorf("tmux %s on tmux %s: event transport %s, want %s", cmd, v.Raw, e.Transport, kind)
		}
	}
}
