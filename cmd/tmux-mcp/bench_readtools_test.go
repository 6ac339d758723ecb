package main

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// BenchmarkStdioAdminReadTools measures, in one run over stdio, the p50 and p95
// of MCP ping and of the read tools of panes, options, environment, hooks
// and buffers, so each can be quoted as a ratio to ping.
//
//	go test -run '^$' -bench StdioAdminReadTools -benchtime 1000x ./cmd/tmux-mcp
func BenchmarkStdioAdminReadTools(b *testing.B) {
	bin := buildBinary(b)
	tm := tmuxtest.New(b)
	tm.Start("main")
	tm.MustTmux("set-hook", "-g", "pane-exited", "display-message done")
	c, _, _ := startStdio(b, bin, binaryEnv(tm.Socket, "TMUX_MCP_SERVER_RATE=1000000"))
	b.Cleanup(func() { c.Close() })
	ctx := context.Background()
	call := func(name string, args map[string]any) (*mcp.CallToolResult, error) {
		var req mcp.CallToolRequest
		req.Params.Name = name
		req.Params.Arguments = args
		return c.CallTool(ctx, req)
	}
	res, err := call("load_buffer", map[string]any{"content": "some text\nto read back\n"})
	if err != nil || res.IsError {
		b.Fatalf("load_buffer: %v %v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var ref struct {
		BufferName string `json:"buffer_name"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		b.Fatal(err)
	}
	ops := []struct {
		name string
		args map[string]any
	}{
		{"ping", nil},
		{"list_sessions", nil},
		{"get_pane_info", nil},
		{"find_pane_by_position", map[string]any{"corner": "top-left"}},
		{"display_message", map[string]any{"format_string": "#{pane_width}x#{pane_height}"}},
		{"show_option", map[string]any{"option": "history-limit"}},
		{"show_option", map[string]any{"option": "history-limit", "global_": true}},
		{"show_environment", nil},
		{"show_hooks", nil},
		{"show_hook", map[string]any{"hook_name": "pane-exited"}},
		{"show_buffer", map[string]any{"buffer_name": ref.BufferName}},
		{"call_readonly_tools_batch", map[string]any{"operations": []any{
			map[string]any{"tool": "get_pane_info"}, map[string]any{"tool": "show_option", "arguments": map[string]any{"option": "status"}}}}},
	}
	var seq int64
	for _, op := range ops {
		name := op.name
		if op.args["global_"] == true {
			name += "_global"
		}
		b.Run(name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				var err error
				if op.name == "ping" {
					// A real round trip: Client.Ping skips it on a
					// "modern" session.
					seq++
					_, err = c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
						JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(1_000_000 + seq), Method: string(mcp.MethodPing)})
				} else {
					var res *mcp.CallToolResult
					res, err = call(op.name, op.args)
					if err == nil && res.IsError {
						b.Fatalf("%s: %v", op.name, res.Content)
					}
				}
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatalf("%s: %v", op.name, err)
				}
			}
			slices.Sort(lat)
			pct := func(p float64) float64 {
				return float64(lat[int(p*float64(len(lat)-1))].Microseconds())
			}
			b.ReportMetric(pct(0.50), "p50-µs")
			b.ReportMetric(pct(0.95), "p95-µs")
		})
	}
}
