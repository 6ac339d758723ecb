package tmux_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// benchServer starts a server with a 120x40 pane showing 40 lines and a
// second pane holding 50,000 lines of history, and returns a client per
// transport.
func benchServer(b *testing.B) (clients map[string]*tmux.Client, small, big string) {
	b.Helper()
	s := tmuxtest.New(b)
	s.Start("small")
	small = s.MustTmux("display-message", "-p", "-t", "=small:", "#{pane_id}")
	s.MustTmux("respawn-pane", "-k", "-t", small, "seq 1 40; exec cat")
	s.MustTmux("set-option", "-g", "history-limit", "60000")
	s.MustTmux("new-session", "-d", "-s", "big", "-x", "120", "-y", "40", "seq 1 50000; exec cat")
	big = s.MustTmux("display-message", "-p", "-t", "=big:", "#{pane_id}")
	tmuxtest.WaitFor(b, 20*time.Second, "50,000 lines of history", func() bool {
		out, err := s.Tmux("display-message", "-p", "-t", big, "#{history_size}")
		n, _ := strconv.Atoi(out)
		return err == nil && n >= 49960
	})
	clients = map[string]*tmux.Client{}
	for _, kind := range transports {
		c, err := tmux.NewClient(tmux.ClientOptions{Socket: tmux.Socket{Path: s.Socket}, Control: kind == "control"})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Connect(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		clients[kind] = c
	}
	return clients, small, big
}

func BenchmarkWire(b *testing.B) {
	clients, small, big := benchServer(b)
	ctx := context.Background()
	for _, kind := range transports {
		c := clients[kind]
		b.Run("display/"+kind, func(b *testing.B) {
			tmuxtest.MeasureLatency(b, func() error {
				out, err := c.Run(ctx, "display-message", "-p", "-t", small, "#{pane_id}")
				if err == nil && strings.TrimSpace(string(out)) != small {
					b.Fatalf("display = %q, want %s", out, small)
				}
				return err
			})
		})
		b.Run("capture-visible-40/"+kind, func(b *testing.B) {
			tmuxtest.MeasureLatency(b, func() error {
				out, err := c.Capture(ctx, tmux.CaptureOptions{Target: small})
				if err == nil && strings.Count(string(out), "\n") != 40 {
					b.Fatalf("capture has %d lines, want 40", strings.Count(string(out), "\n"))
				}
				return err
			})
		})
		b.Run("capture-S-500-of-50k/"+kind, func(b *testing.B) {
			tmuxtest.MeasureLatency(b, func() error {
				out, err := c.Capture(ctx, tmux.CaptureOptions{Target: big, Start: "-500"})
				if err == nil && strings.Count(string(out), "\n") != 540 {
					b.Fatalf("capture has %d lines, want 540", strings.Count(string(out), "\n"))
				}
				return err
			})
		})
	}
}
