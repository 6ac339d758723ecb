package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// BenchmarkStdioToolLatency measures end-to-end tool latency: the built
// binary over stdio, driven by an MCP client, on an isolated tmux server.
// It reports the median and 95th percentile per call, with the server
// rate limit out of the way.
//
//	go test -run '^$' -bench StdioToolLatency -benchtime 2000x ./cmd/tmux-mcp
func BenchmarkStdioToolLatency(b *testing.B) {
	bin := buildBinary(b)
	tm := tmuxtest.New(b)
	tm.Start("main")
	// The server rate limit (200/s after a burst of 400) would otherwise be
	// what a long run measures.
	c, _, _ := startStdio(b, bin, binaryEnv(tm.Socket, "TMUX_MCP_SERVER_RATE=1000000"))
	b.Cleanup(func() { c.Close() })
	for _, name := range []string{"list_sessions", "get_server_info"} {
		b.Run(name, func(b *testing.B) { benchTool(b, c, name) })
	}
}

// BenchmarkStdioToolLatencyTelemetry is BenchmarkStdioToolLatency for
// list_sessions with telemetry off, exporting traces and metrics to a live
// OTLP collector, and to one that accepts connections and never answers.
// Compare the p50s of one run.
//
//	go test -run '^$' -bench StdioToolLatencyTelemetry -benchtime 2000x ./cmd/tmux-mcp
func BenchmarkStdioToolLatencyTelemetry(b *testing.B) {
	bin := buildBinary(b)
	tm := tmuxtest.New(b)
	tm.Start("main")
	live := e2etest.NewHTTPCollector(b)
	hung, _ := blackhole(b)
	for _, bc := range []struct {
		name     string
		endpoint string
	}{{"off", ""}, {"live_collector", live.Endpoint}, {"hung_collector", hung}} {
		b.Run(bc.name, func(b *testing.B) {
			env := []string{"TMUX_MCP_SERVER_RATE=1000000"}
			if bc.endpoint != "" {
				env = append(env, "OTEL_EXPORTER_OTLP_ENDPOINT="+bc.endpoint, "OTEL_METRIC_EXPORT_INTERVAL=1000")
			}
			c, _, _ := startStdio(b, bin, binaryEnv(tm.Socket, env...))
			defer c.Close()
			benchTool(b, c, "list_sessions")
		})
	}
}

// benchTool calls name in a loop and reports the median and 95th
// percentile latency.
func benchTool(b *testing.B, c *client.Client, name string) {
	var req mcp.CallToolRequest
	req.Params.Name = name
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		res, err := c.CallTool(ctx, req)
		lat = append(lat, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", name, err, res)
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds())
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.95), "p95-µs")
}
