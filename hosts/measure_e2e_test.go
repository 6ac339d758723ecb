package hosts_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestMeasureHop measures what the hop through a local tmux-mcp adds to
// a call on another host: each call made through the local tmux-mcp with
// host, and the same call made to the remote tmux-mcp directly over its
// own ssh connection, alternately, on one simulated host (sshd on
// loopback). It also measures the time to reconnect after the ssh
// connection that served for a while is killed. docs/hosts.md has the figures.
//
//	TMUX_MCP_MEASURE=1 go test -run MeasureHop -v ./hosts/
func TestMeasureHop(t *testing.T) {
	if os.Getenv("TMUX_MCP_MEASURE") != "1" {
		t.Skip("a measurement: TMUX_MCP_MEASURE=1 runs it")
	}
	rounds := 200
	if n, err := strconv.Atoi(os.Getenv("TMUX_MCP_HOP_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	f := startHostsFixture(t)
	pane := f.session(t, "beta", "hop")
	direct := directClient(t, f)

	call := func(c *client.Client, name string, args map[string]any) time.Duration {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.Arguments = name, args
		start := time.Now()
		res, err := c.CallTool(ctx, req)
		took := time.Since(start)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", name, err, res)
		}
		return took
	}
	with := func(args map[string]any, host bool) map[string]any {
		out := map[string]any{}
		for k, v := range args {
			out[k] = v
		}
		if host {
			out["host"] = "beta"
		}
		return out
	}
	// wait measures a wait_for_text from the moment the pane is told to
	// print what it waits for to the call's return.
	wait := func(c *client.Client, host bool, i int) time.Duration {
		mark := fmt.Sprintf("mark-%d-%t", i, host)
		done := make(chan time.Time, 1)
		go func() {
			call(c, "wait_for_text", with(map[string]any{"pane_id": pane, "patterns": []string{mark}, "timeout": 10, "since": "call"}, host))
			done <- time.Now()
		}()
		// The wait must have begun before the text is printed: older text
		// never matches. 100 ms is far more than either path takes to start it.
		time.Sleep(100 * time.Millisecond)
		printed := time.Now()
		if out, err := f.b.tmux(t, "send-keys", "-t", pane, "echo "+mark, "Enter"); err != nil {
			t.Fatalf("send-keys: %v %s", err, out)
		}
		return (<-done).Sub(printed)
	}
	type series struct{ hop, direct []time.Duration }
	got := map[string]*series{"server_health": {}, "capture_pane": {}, "wait_for_text": {}}
	for i := 0; i < rounds; i++ {
		for _, hop := range []bool{i%2 == 0, i%2 != 0} {
			c := direct
			if hop {
				c = f.c
			}
			add := func(name string, d time.Duration) {
				if hop {
					got[name].hop = append(got[name].hop, d)
				} else {
					got[name].direct = append(got[name].direct, d)
				}
			}
			add("server_health", call(c, "server_health", with(nil, hop)))
			add("capture_pane", call(c, "capture_pane", with(map[string]any{"pane_id": pane}, hop)))
			if i < rounds/4 {
				add("wait_for_text", wait(c, hop, i))
			}
		}
	}
	t.Logf("hop overhead, %d rounds (wait_for_text %d), p50 / p95 in ms:", rounds, rounds/4)
	t.Logf("| call | direct p50 / p95 | through the hop p50 / p95 | hop adds at p50 |")
	for _, name := range []string{"server_health", "capture_pane", "wait_for_text"} {
		s := got[name]
		d50, d95 := pct(s.direct, 50), pct(s.direct, 95)
		h50, h95 := pct(s.hop, 50), pct(s.hop, 95)
		t.Logf("| %s | %.3f / %.3f | %.3f / %.3f | %.3f |", name, d50, d95, h50, h95, h50-d50)
	}

	// Reconnection after the ssh connection is killed: the kill to the
	// host being up again on a new connection, polled every 5 ms.
	var rec []time.Duration
	for i := 0; i < 20; i++ {
		// A connection that has served a while (the reconnect policy's StableAfter, 2s) is
		// retried at once when lost; one just made backs off.
		time.Sleep(2500 * time.Millisecond)
		before := f.hosts(t)["beta"].Connects
		killed := time.Now()
		f.b.sshd.KillSessions()
		for {
			h := f.hosts(t)["beta"]
			if h.State == "up" && h.Connects > before {
				break
			}
			if time.Since(killed) > 30*time.Second {
				t.Fatalf("beta did not reconnect: %+v", h)
			}
			time.Sleep(5 * time.Millisecond)
		}
		rec = append(rec, time.Since(killed))
	}
	t.Logf("reconnect after a killed connection, 20 kills: p50 %.0f ms, p95 %.0f ms, max %.0f ms",
		pct(rec, 50), pct(rec, 95), pct(rec, 100))
}

// pct is the p-th percentile of ds in milliseconds.
func pct(ds []time.Duration, p int) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	if i > 0 {
		i--
	}
	return float64(s[i].Microseconds()) / 1000
}

// directClient connects to beta's tmux-mcp over ssh without the local
// tmux-mcp in between.
func directClient(t *testing.T, f *hostsFixture) *client.Client {
	t.Helper()
	args := append(slices.Clone(f.ssh[1:]), "-T", "-o", "BatchMode=yes", "-p", strconv.Itoa(f.b.sshd.Port), "-l", f.b.sshd.User,
		"127.0.0.1", "tmux-mcp serve --safety destructive")
	c, err := client.NewStdioMCPClient(f.ssh[0], nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "direct", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("direct initialize: %v", err)
	}
	return c
}
