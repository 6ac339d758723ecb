package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestMaxWatchersEndToEnd drives the built binary with
// TMUX_MCP_MAX_WATCHERS and more sessions than that: tmux-mcp opens at
// most that many watcher connections (server_health and tmux's own client
// list agree), and captures of the sessions beyond them are still exact:
// once tmux shows a pane's new line, the next capture_pane has it. With 0
// it opens none.
func TestMaxWatchersEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	tests := []struct {
		max, sessions int
	}{
		{max: 2, sessions: 5},
		{max: 0, sessions: 3},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.max), func(t *testing.T) {
			tm := tmuxtest.New(t)
			var panes []string
			for i := range tt.sessions {
				panes = append(panes, strings.TrimSpace(tm.MustTmux("new-session", "-d", "-P", "-F", "#{pane_id}",
					"-s", fmt.Sprintf("s%d", i), "exec cat")))
			}
			c, _, stderr := startStdio(t, bin, binaryEnv(tm.Socket, "TMUX_MCP_MAX_WATCHERS="+strconv.Itoa(tt.max)))
			defer c.Close()
			// Twice each: the second capture of a silent pane may come
			// from the cache, which is what must never be stale below.
			for range 2 {
				for _, p := range panes {
					capturePane(t, c, p)
				}
			}
			want := tt.max
			if serverCaps(t, tm).DeadPaneOutputCrash {
				want = 0 // tmux 3.2a: no watcher connections at all
			}
			if got := watchersOf(t, c); got != want {
				t.Errorf("server_health watchers = %d, want %d\nstderr:\n%s", got, want, stderr)
			}
			if got := outputClients(tm); got != want {
				t.Errorf("tmux lists %d control clients that receive output, want %d", got, want)
			}
			for i, p := range panes {
				marker := fmt.Sprintf("MARK%d-%d.", tt.max, i)
				tm.MustTmux("send-keys", "-t", p, "-l", marker)
				tm.MustTmux("send-keys", "-t", p, "Enter")
				// cat echoes the line twice (the terminal, then cat): once
				// tmux shows both, a capture that begins now must too.
				tmuxtest.WaitFor(t, 10*time.Second, "tmux to show "+marker, func() bool {
					return strings.Count(tm.MustTmux("capture-pane", "-p", "-t", p), marker) == 2
				})
				if got := capturePane(t, c, p); strings.Count(got.Result, marker) != 2 {
					t.Errorf("capture_pane %s (freshness %s, cached %v) = %q, want %s twice: stale",
						p, got.Freshness, got.Cached, got.Result, marker)
				}
			}
			if got := watchersOf(t, c); got > want {
				t.Errorf("server_health watchers after the markers = %d, want at most %d", got, want)
			}
		})
	}
}

// capture is the part of capture_pane's result these tests read.
type capture struct {
	Result    string `json:"result"`
	Cached    bool   `json:"cached"`
	Freshness string `json:"freshness"`
}

func capturePane(tb testing.TB, c *client.Client, pane string) capture {
	tb.Helper()
	var out capture
	decode(tb, callTool(tb, c, "capture_pane", map[string]any{"pane_id": pane}), &out)
	return out
}

// watchersOf returns server_health's watcher connections.
func watchersOf(tb testing.TB, c *client.Client) int {
	tb.Helper()
	var h struct {
		Watchers *int `json:"watchers"`
	}
	decode(tb, callTool(tb, c, "server_health", nil), &h)
	if h.Watchers == nil {
		tb.Fatal("server_health has no watchers field")
	}
	return *h.Watchers
}

// outputClients counts the clients of tm's server that receive pane
// output: tmux-mcp's watcher connections (its command connection has
// no-output, and the tests attach no terminal).
func outputClients(tm *tmuxtest.Server) int {
	n := 0
	for _, f := range strings.Split(tm.MustTmux("list-clients", "-F", "#{client_flags}"), "\n") {
		if f != "" && !strings.Contains(f, "no-output") {
			n++
		}
	}
	return n
}
