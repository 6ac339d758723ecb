package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// health is the part of server_health these tests read.
type health struct {
	State    string `json:"state"`
	PID      int    `json:"pid"`
	Commands int    `json:"commands"`
	Barriers int    `json:"barriers"`
	Captures int    `json:"captures"`
}

func serverHealth(tb testing.TB, c *client.Client) health {
	tb.Helper()
	var h health
	if err := json.Unmarshal(callTool(tb, c, "server_health", nil).RawStructuredContent, &h); err != nil {
		tb.Fatalf("decode server_health: %v", err)
	}
	return h
}

// TestStdioPush drives the built binary over stdio the way an MCP client
// of the 2025 protocol does: prompts, completion, a subscription that is
// pushed an update when the pane prints and none once unsubscribed (and
// costs nothing while the pane is silent; refused on tmux 3.2a, which gets
// no watcher connections), and log notifications when the
// tmux server is killed, at or above the level set and never carrying
// pane text or keystrokes.
func TestStdioPush(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	pid := tm.Start("main")
	tm.MustTmux("new-session", "-d", "-s", "mainline", "exec cat")
	// The journal's snapshots are tmux work of their own (measured in its
	// tests): off here, so the silence below measures subscriptions alone.
	c, p, stderr := startLegacyStdio(t, bin, binaryEnv(tm.Socket, "TMUX_MCP_JOURNAL=off"))
	ctx := context.Background()

	prompts, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || len(prompts.Prompts) != 5 {
		t.Fatalf("prompts/list: %v, %v; want 5 prompts", err, prompts)
	}
	var preq mcp.GetPromptRequest
	preq.Params.Name = "interrupt_gracefully"
	preq.Params.Arguments = map[string]string{"pane_id": "%1"}
	if res, err := c.GetPrompt(ctx, preq); err != nil || !strings.Contains(res.Messages[0].Content.(mcp.TextContent).Text, `send_keys(pane_id="%1", keys="C-c"`) {
		t.Errorf("prompts/get interrupt_gracefully: %v %v", err, res)
	}

	var creq mcp.CompleteRequest
	creq.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: "tmux://sessions/{session_name}{?socket_name}"}
	creq.Params.Argument = mcp.CompleteArgument{Name: "session_name", Value: "mai"}
	if res, err := c.Complete(ctx, creq); err != nil || !slices.Equal(res.Completion.Values, []string{"main", "mainline"}) {
		t.Errorf("complete session_name \"mai\": %v %v, want [main mainline]", err, res)
	}

	if err := rpc(c, string(mcp.MethodSetLogLevel), map[string]any{"level": "warning"}); err != nil {
		t.Fatal(err)
	}
	pane := tm.MustTmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main", "exec cat")
	const marker = "MARKER-e2e-51c2"
	// Every tmux: a watcher connection, or a pipe feed on 3.2a.
	subscribeAndUnsubscribe(t, c, p, tm, pane, marker)

	// kill -9, twice: the second death's message proves (one queue per
	// session, in order) that anything the first restart logged below the
	// level would have arrived before it.
	if got := tm.PID(); got != pid {
		t.Fatalf("test server has pid %d, started %d; not signalling", got, pid)
	}
	for round := 1; round <= 2; round++ {
		h := serverHealth(t, c)
		if h.PID != tm.PID() || h.PID <= 0 {
			t.Fatalf("server_health pid %d, test socket's server %d; not signalling", h.PID, tm.PID())
		}
		i := p.Len()
		if err := syscall.Kill(h.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		died := p.Wait(t, i, 10*time.Second, "a server_died log message", isLogOf("server_died"))
		if died.Str("level") != "error" || died.Data("cause") != "killed" || died.Data("pid") != float64(h.PID) {
			t.Errorf("death message %s, want level error, cause killed, pid %d", died.Raw, h.PID)
		}
		tmuxtest.WaitFor(t, 15*time.Second, "the server to be restarted", func() bool {
			h2 := serverHealth(t, c)
			if h2.State == "up" && h2.PID > 0 && h2.PID != h.PID {
				tm.Track(h2.PID)
				return true
			}
			return false
		})
	}
	rank := map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}
	for _, r := range p.Since(0) {
		if r.Method == string(mcp.MethodNotificationMessage) && rank[r.Str("level")] < rank["warning"] {
			t.Errorf("log message below the level set (warning): %s", r.Raw)
		}
		if strings.Contains(r.Raw, marker) {
			t.Errorf("a notification carries pane text or keys: %s", r.Raw)
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr)
	}
}

// BenchmarkStdioPaneUpdateLatency measures the time from a pane's output
// to notifications/resources/updated at a client of the built binary over
// stdio. The pane runs cat on a FIFO: the clock starts when the benchmark
// writes a line to it, which cat prints at once. Samples are 150 ms apart,
// so each is the first change after a quiet spell (within 100 ms of an
// update, the next is held back by design).
//
//	go test -run '^$' -bench StdioPaneUpdateLatency -benchtime 200x ./cmd/tmux-mcp
func BenchmarkStdioPaneUpdateLatency(b *testing.B) {
	bin := buildBinary(b)
	tm := tmuxtest.New(b)
	tm.Start("main")
	fifo := filepath.Join(tm.Dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		b.Fatal(err)
	}
	pane := tm.MustTmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main", "exec cat "+fifo)
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	c, p, _ := startLegacyStdio(b, bin, binaryEnv(tm.Socket, "TMUX_MCP_JOURNAL=off"))
	uri := contentURI(pane)
	if err := rpc(c, string(mcp.MethodResourcesSubscribe), map[string]any{"uri": uri}); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		b.StopTimer()
		time.Sleep(150 * time.Millisecond)
		b.StartTimer()
		i := p.Len()
		start := time.Now()
		if _, err := w.Write([]byte("x\n")); err != nil {
			b.Fatal(err)
		}
		got := p.Wait(b, i, 10*time.Second, "an update", isUpdate(uri))
		lat = append(lat, got.At.Sub(start))
	}
	slices.Sort(lat)
	pct := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.95), "p95-µs")
}

// subscribeAndUnsubscribe subscribes c to pane's content: a silent pane
// costs tmux nothing, its output is an update, and none comes once
// unsubscribed.
func subscribeAndUnsubscribe(t *testing.T, c *client.Client, p *pushed, tm *tmuxtest.Server, pane, marker string) {
	t.Helper()
	uri := contentURI(pane)
	if err := rpc(c, string(mcp.MethodResourcesSubscribe), map[string]any{"uri": uri}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}

	// Silent: no tmux command, barrier or capture.
	before := serverHealth(t, c)
	time.Sleep(time.Second) // the silence being measured
	if after := serverHealth(t, c); after.Commands != before.Commands || after.Barriers != before.Barriers || after.Captures != before.Captures {
		t.Errorf("a subscribed silent pane cost tmux work: health %+v, then %+v", before, after)
	}

	i := p.Len()
	start := time.Now()
	tm.MustTmux("send-keys", "-t", pane, marker, "Enter")
	got := p.Wait(t, i, 5*time.Second, "an update of "+uri, isUpdate(uri))
	t.Logf("send-keys to notifications/resources/updated over stdio: %v (exec send-keys included)", got.At.Sub(start))

	if err := rpc(c, string(mcp.MethodResourcesUnsubscribe), map[string]any{"uri": uri}); err != nil {
		t.Fatal(err)
	}
	i = p.Len()
	tm.MustTmux("send-keys", "-t", pane, "after-unsubscribe", "Enter")
	tmuxtest.WaitFor(t, 5*time.Second, "the pane to print", func() bool {
		return strings.Contains(tm.MustTmux("capture-pane", "-p", "-t", pane), "after-unsubscribe")
	})
	time.Sleep(300 * time.Millisecond) // absence cannot be awaited: three hold-offs
	for _, r := range p.Since(i) {
		if isUpdate(uri)(r) {
			t.Errorf("update after unsubscribe: %s", r.Raw)
		}
	}
}
