package supervisor

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// BenchmarkCaptureUnchanged compares, in one run, a capture of a pane that
// has not changed: through the supervisor served from cache (the barrier
// round trip included), through the supervisor with nothing cached (barrier
// and capture-pane), straight over the wire's control transport, and over
// exec; and counts what 600 captures of the silent pane cost tmux.
func BenchmarkCaptureUnchanged(b *testing.B) {
	ts := tmuxtest.New(b)
	sup := New(Config{DefaultSocket: tmux.Socket{Path: ts.Socket}, TmuxConfig: "/dev/null",
		ReadRate: 1e9, ReadBurst: 1 << 30, ServerRate: 1e9, ServerBurst: 1 << 30})
	b.Cleanup(func() { sup.Close() })
	ctx := context.Background()
	srv, err := sup.Default(ctx)
	if err != nil {
		b.Fatal(err)
	}
	sup.Subscribe(func(e Event) {
		if e.Type == EventServerStarted {
			ts.Track(e.PID)
		}
	})
	ts.Track(srv.Health().PID)
	out, err := srv.do(ctx, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "b", "-x", "120", "-y", "40", "seq 1 40; exec cat")
	if err != nil {
		b.Fatal(err)
	}
	pane := tmux.PaneID(trimNL(out))
	tmuxtest.WaitFor(b, 5*time.Second, "pane output", func() bool {
		c, err := srv.Capture(ctx, CaptureRequest{Pane: pane})
		return err == nil && bytes.Contains(c.Content, []byte("\n40\n"))
	})
	tmuxtest.WaitFor(b, 5*time.Second, "a capture from cache", func() bool {
		c, err := srv.Capture(ctx, CaptureRequest{Pane: pane})
		return err == nil && c.Cached
	})
	b.Run("supervisor-cache-hit", func(b *testing.B) {
		tmuxtest.MeasureLatency(b, func() error {
			c, err := srv.Capture(ctx, CaptureRequest{Pane: pane})
			if err == nil && !c.Cached {
				b.Fatal("capture of an unchanged pane was not served from cache")
			}
			return err
		})
	})
	b.Run("supervisor-uncached", func(b *testing.B) {
		tmuxtest.MeasureLatency(b, func() error {
			srv.fresh.Changed()
			c, err := srv.Capture(ctx, CaptureRequest{Pane: pane})
			if err == nil && c.Cached {
				b.Fatal("capture was served from cache after the cache was dropped")
			}
			return err
		})
	})
	b.Run("silent-pane-600-captures", func(b *testing.B) {
		var barriers, captures uint64
		for i := 0; i < b.N; i++ {
			before := srv.Health()
			for j := 0; j < 600; j++ {
				if _, err := srv.Capture(ctx, CaptureRequest{Pane: pane}); err != nil {
					b.Fatal(err)
				}
			}
			after := srv.Health()
			barriers += after.Barriers - before.Barriers
			captures += after.Captures - before.Captures
		}
		b.ReportMetric(float64(barriers)/float64(b.N), "barriers/600")
		b.ReportMetric(float64(captures)/float64(b.N), "capture-pane/600")
	})
	b.Run("wire-control", func(b *testing.B) {
		tmuxtest.MeasureLatency(b, func() error {
			_, err := srv.client.Capture(ctx, tmux.CaptureOptions{Target: string(pane)})
			return err
		})
	})
	b.Run("wire-exec", func(b *testing.B) {
		tmuxtest.MeasureLatency(b, func() error {
			_, err := srv.client.Exec().Run(ctx, "capture-pane", "-p", "-t", string(pane))
			return err
		})
	})
}

func trimNL(b []byte) string {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return string(b)
}
