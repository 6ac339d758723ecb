package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// latencies collects durations and reports percentiles as metrics.
type latencies []time.Duration

func (l latencies) report(b *testing.B, prefix string) {
	slices.Sort(l)
	pct := func(p float64) float64 { return float64(l[int(p*float64(len(l)-1))].Microseconds()) }
	b.ReportMetric(pct(0.50), prefix+"p50-µs")
	b.ReportMetric(pct(0.95), prefix+"p95-µs")
}

func (l latencies) p50() time.Duration { return l.pct(0.50) }

// pct returns the p-th percentile (0 to 1).
func (l latencies) pct(p float64) time.Duration {
	s := slices.Clone(l)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}

// rawStdio drives the binary with plain JSON-RPC lines over stdio, one
// request at a time, as the figures were taken.
type rawStdio struct {
	in    io.Writer
	lines chan []byte
	id    int
	pid   int // the binary's
}

func startRaw(b *testing.B, bin string, env []string) *rawStdio {
	b.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	r := &rawStdio{in: stdin, lines: make(chan []byte, 64), pid: cmd.Process.Pid}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			r.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(r.lines)
	}()
	r.call(b, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "0"}})
	fmt.Fprintln(r.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

// call sends one request and returns its result, skipping notifications.
func (r *rawStdio) call(b *testing.B, method string, params any) json.RawMessage {
	r.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.id, "method": method, "params": params})
	if _, err := r.in.Write(append(req, '\n')); err != nil {
		b.Fatal(err)
	}
	for line := range r.lines {
		var resp struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil || resp.ID != r.id {
			continue
		}
		if resp.Error != nil || strings.Contains(string(resp.Result), `"isError":true`) {
			b.Fatalf("%s: %s", method, line)
		}
		return resp.Result
	}
	b.Fatal("stdout closed")
	return nil
}

// BenchmarkStdioReadTools measures, in one run, the p50 of MCP ping and of
// the read tools, with plain JSON-RPC over stdio on an isolated server with
// one pane, and reports each as a ratio to ping. The calls take turns (one
// of each per iteration), so a change of the machine's load during the run
// weighs on all of them alike. It also reports the CPU time a call costs
// tmux-mcp and the tmux server (p50 of their threads' schedstat before and
// after each call), which the load of a shared machine hardly changes.
//
//	go test -run '^$' -bench StdioReadTools -benchtime 2000x ./cmd/tmux-mcp
func BenchmarkStdioReadTools(b *testing.B) {
	bin := buildBinary(b)
	tm := tmuxtest.New(b)
	tm.Start("main")
	r := startRaw(b, bin, binaryEnv(tm.Socket, "TMUX_MCP_SERVER_RATE=1000000", "TMUX_MCP_READ_RATE=1000000"))
	pane := strings.TrimSpace(tm.MustTmux("display-message", "-p", "-t", "main", "#{pane_id}"))
	tmuxPID, err := strconv.Atoi(strings.TrimSpace(tm.MustTmux("display-message", "-p", "#{pid}")))
	if err != nil {
		b.Fatal(err)
	}
	calls := []struct {
		name string
		args map[string]any
	}{
		{"ping", nil},
		{"server_health", nil},
		{"list_sessions", nil},
		{"list_windows", nil},
		{"list_panes", nil},
		{"get_server_info", nil},
		{"capture_pane", map[string]any{"pane_id": pane}},
		{"snapshot_pane", map[string]any{"pane_id": pane}},
		{"capture_since", map[string]any{"pane_id": pane}},
		{"search_panes", map[string]any{"pattern": "nothing-matches-this"}},
	}
	lat := make([]latencies, len(calls))
	cpu := make([]latencies, len(calls))  // tmux-mcp
	tcpu := make([]latencies, len(calls)) // tmux
	for b.Loop() {
		for i, call := range calls {
			c0, t0 := threadsCPU(r.pid), threadsCPU(tmuxPID)
			start := time.Now()
			if call.name == "ping" {
				r.call(b, "ping", nil)
			} else {
				r.call(b, "tools/call", map[string]any{"name": call.name, "arguments": call.args})
			}
			lat[i] = append(lat[i], time.Since(start))
			cpu[i] = append(cpu[i], threadsCPU(r.pid)-c0)
			tcpu[i] = append(tcpu[i], threadsCPU(tmuxPID)-t0)
		}
	}
	ping := lat[0].p50()
	var table strings.Builder
	fmt.Fprintf(&table, "\n| Call | p50 | p95 | p50 vs ping | tmux-mcp CPU | tmux CPU |\n|---|---|---|---|---|---|\n")
	for i, call := range calls {
		p50, p95 := lat[i].pct(0.50), lat[i].pct(0.95)
		ratio := float64(p50) / float64(ping)
		fmt.Fprintf(&table, "| %s | %d µs | %d µs | %.1fx | %d µs | %d µs |\n", call.name, p50.Microseconds(), p95.Microseconds(),
			ratio, cpu[i].p50().Microseconds(), tcpu[i].p50().Microseconds())
		if i > 0 {
			b.ReportMetric(ratio, call.name+"-x-ping")
		}
	}
	b.ReportMetric(float64(ping.Microseconds()), "ping-p50-µs")
	fmt.Print(table.String()) // b.Log keeps only 10 lines of a benchmark's output
}

// threadsCPU returns the CPU time the threads of process pid have used so
// far, from /proc/PID/task/TID/schedstat (0 where it cannot be read).
func threadsCPU(pid int) time.Duration {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue
		}
		ns, _, _ := strings.Cut(string(b), " ")
		n, _ := strconv.ParseInt(ns, 10, 64)
		sum += time.Duration(n)
	}
	return sum
}

// BenchmarkWaitDetection measures, over stdio in one run, how soon text
// printed into a pane is detected: by wait_for_text (watcher events), and
// by a loop calling capture_pane every 50 ms. Latency runs from the moment
// tmux send-keys returns to the detection. It also counts the capture-pane
// commands that reach tmux while wait_for_text waits on a silent pane.
//
// The per-pane read rate is lifted: back to back, each wait_for_text
// captures the pane three times or so (the baseline twice, the detection
// once), and at the default 20 captures a second the loop would measure
// the token bucket, not the detection.
//
//	go test -run '^$' -bench WaitDetection -benchtime 100x ./cmd/tmux-mcp
func BenchmarkWaitDetection(b *testing.B) {
	bin := buildBinary(b)
	tm := tmuxtest.New(b)
	tm.Start("main")
	c, _, _ := startStdio(b, bin, binaryEnv(tm.Socket, "TMUX_MCP_SERVER_RATE=1000000", "TMUX_MCP_READ_RATE=1000000"))
	b.Cleanup(func() { c.Close() })
	pane := strings.TrimSpace(tm.MustTmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "exec cat"))
	// startStdio's client has no notification handler until Start (which
	// is idempotent) installs it.
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	armed := make(chan struct{}, 16)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			select {
			case armed <- struct{}{}:
			default:
			}
		}
	})
	ctx := context.Background()
	send := func(text string) time.Time {
		tm.MustTmux("send-keys", "-t", pane, "-l", text+"\n")
		return time.Now()
	}
	var waitP50, pollP50 time.Duration

	b.Run("wait_for_text", func(b *testing.B) {
		var lat latencies
		i := 0
		for b.Loop() {
			i++
			marker := fmt.Sprintf("WAIT_MARK_%d_", i)
			drain(armed)
			done := make(chan *mcp.CallToolResult, 1)
			go func() {
				var req mcp.CallToolRequest
				req.Params.Name = "wait_for_text"
				req.Params.Arguments = map[string]any{"pane_id": pane, "patterns": []any{marker}, "timeout": 10}
				req.Params.Meta = &mcp.Meta{ProgressToken: "bench"}
				res, err := c.CallTool(ctx, req)
				if err != nil {
					res = mcp.NewToolResultError(err.Error())
				}
				done <- res
			}()
			select {
			case <-armed:
			case res := <-done:
				b.Fatalf("wait_for_text ended before it was armed: %v", res)
			}
			sent := send(marker)
			res := <-done
			lat = append(lat, time.Since(sent))
			if res == nil || res.IsError || !strings.Contains(text(res), `"found":true`) {
				b.Fatalf("wait_for_text: %v", res)
			}
		}
		lat.report(b, "")
		waitP50 = lat.p50()
	})

	b.Run("poll-50ms", func(b *testing.B) {
		var lat latencies
		i := 0
		for b.Loop() {
			i++
			marker := fmt.Sprintf("POLL_MARK_%d_", i)
			sent := make(chan time.Time, 1)
			tick := time.NewTicker(50 * time.Millisecond)
			// The text appears at a random moment of the poll cycle.
			timer := time.AfterFunc(rand.N(50*time.Millisecond), func() { sent <- send(marker) })
			for {
				var req mcp.CallToolRequest
				req.Params.Name = "capture_pane"
				req.Params.Arguments = map[string]any{"pane_id": pane}
				res, err := c.CallTool(ctx, req)
				if err != nil || res.IsError {
					b.Fatalf("capture_pane: %v %v", err, res)
				}
				if strings.Contains(text(res), marker) {
					// A capture may see the text before send-keys has
					// returned: that counts as detected at once.
					seen := time.Now()
					lat = append(lat, max(seen.Sub(<-sent), 0))
					break
				}
				<-tick.C
			}
			tick.Stop()
			timer.Stop()
		}
		lat.report(b, "")
		pollP50 = lat.p50()
		if waitP50 > 0 {
			b.ReportMetric(float64(pollP50)/float64(waitP50), "x-wait")
		}
	})

	b.Run("silent", func(b *testing.B) {
		quiet := strings.TrimSpace(tm.MustTmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "exec sleep 1000"))
		const window = 2 * time.Second
		var captures, barriers uint64
		var waited time.Duration
		for b.Loop() {
			drain(armed)
			done := make(chan error, 1)
			go func() {
				var req mcp.CallToolRequest
				req.Params.Name = "wait_for_text"
				req.Params.Arguments = map[string]any{"pane_id": quiet, "patterns": []any{"NEVER"}, "timeout": (window + time.Second).Seconds()}
				req.Params.Meta = &mcp.Meta{ProgressToken: "bench"}
				_, err := c.CallTool(ctx, req)
				done <- err
			}()
			select {
			case <-armed:
			case err := <-done:
				b.Fatalf("wait_for_text ended before it was armed: %v", err)
			}
			h0 := healthCountsOf(b, c)
			start := time.Now()
			time.Sleep(window) // the measurement window: the pane stays silent
			h1 := healthCountsOf(b, c)
			waited += time.Since(start)
			captures += h1.Captures - h0.Captures
			barriers += h1.Barriers - h0.Barriers
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(captures)/waited.Seconds(), "capture-pane/s")
		b.ReportMetric(float64(barriers)/waited.Seconds(), "barriers/s")
	})
}

type healthCounts struct {
	Captures uint64 `json:"captures"`
	Barriers uint64 `json:"barriers"`
}

func healthCountsOf(b *testing.B, c *client.Client) healthCounts {
	b.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = "server_health"
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		b.Fatalf("server_health: %v %v", err, res)
	}
	var h healthCounts
	if err := json.Unmarshal([]byte(text(res)), &h); err != nil {
		b.Fatal(err)
	}
	return h
}

func drain(ch chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}
