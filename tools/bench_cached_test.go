package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// BenchmarkCachedCapture drives the in-process MCP server with the bytes
// a client sends for capture_pane of a silent pane, and encodes the
// answer as the stdio transport does: the whole cost of a cached capture
// but the pipe. Profile it with
//
//	go test -run '^$' -bench CachedCapture -cpuprofile cpu.out -memprofile mem.out ./tools
func BenchmarkCachedCapture(b *testing.B) {
	tm := tmuxtest.New(b)
	tm.Start("main")
	cfg := testConfig(tm)
	cfg.ServerRate, cfg.ReadRate = 1e6, 1e6
	sup := supervisor.New(cfg)
	b.Cleanup(func() { sup.Close() })
	srv, err := New(Deps{Sup: sup, Tier: Readonly, SocketDir: b.TempDir()}, Options{Settings: mcpserver.Settings{Version: "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	ctx := context.Background()
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + mcp.LATEST_PROTOCOL_VERSION +
		`","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`
	srv.MCP.HandleMessage(ctx, json.RawMessage(init))
	pane := strings.TrimSpace(tm.MustTmux("display-message", "-p", "-t", "main", "#{pane_id}"))
	msg := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"capture_pane","arguments":{"pane_id":"` + pane + `"}}}`)
	call := func() []byte {
		out, err := json.Marshal(srv.MCP.HandleMessage(ctx, msg))
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	// The first capture reads tmux; the next must be answered from cache.
	call()
	if out := call(); !strings.Contains(string(out), `"freshness":"`) || strings.Contains(string(out), `"isError":true`) {
		b.Fatalf("capture_pane: %s", out)
	}
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
}
