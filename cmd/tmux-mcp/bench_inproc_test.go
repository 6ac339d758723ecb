package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// BenchmarkInProcessStdioCapture runs `tmux-mcp serve` in this process
// over pipes (the stdio transport, telemetry hooks, logging and the
// supervisor as the binary has them) and calls capture_pane of a silent
// pane: a cached capture. It exists to be profiled:
//
//	go test -run '^$' -bench InProcessStdioCapture -benchtime 5000x -cpuprofile cpu.out ./cmd/tmux-mcp
//
// BenchmarkStdioReadTools measures the built binary instead.
func BenchmarkInProcessStdioCapture(b *testing.B) {
	tm := tmuxtest.New(b)
	tm.Start("main")
	vars := map[string]string{}
	for _, kv := range binaryEnv(tm.Socket, "TMUX_MCP_SERVER_RATE=1000000", "TMUX_MCP_READ_RATE=1000000") {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() {
		done <- runServe(context.Background(), nil, env{stdin: inR, stdout: outW, stderr: io.Discard,
			getenv: func(k string) string { return vars[k] }})
	}()
	b.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		<-done
	})
	rd := bufio.NewReader(outR)
	id := 0
	send := func(method string, params any) string {
		id++
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := inW.Write(append(msg, '\n')); err != nil {
			b.Fatal(err)
		}
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.Contains(line, `"id":`) {
				return line
			}
		}
	}
	send("initialize", map[string]any{"protocolVersion": mcp.LATEST_PROTOCOL_VERSION, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "0"}})
	inW.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	pane := strings.TrimSpace(tm.MustTmux("display-message", "-p", "-t", "main", "#{pane_id}"))
	args := map[string]any{"name": "capture_pane", "arguments": map[string]any{"pane_id": pane}}
	send("tools/call", args)
	if out := send("tools/call", args); !strings.Contains(out, `"freshness"`) || strings.Contains(out, `"isError":true`) {
		b.Fatalf("capture_pane: %s", out)
	}
	for _, c := range []struct {
		name   string
		method string
		params any
	}{
		{"ping", "ping", nil},
		{"capture_pane", "tools/call", args},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU(b)
			for b.Loop() {
				send(c.method, c.params)
			}
			b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// processCPU returns the user and system CPU time this process has used:
// server and benchmark client together, the same client cost in every
// sub-benchmark.
func processCPU(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
