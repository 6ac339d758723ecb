package taskext

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// BenchmarkCallWithinBudget is the cost of the tasks layer for a call that
// ends within the budget (an instant tool, over mcp-go's stdio server in
// process): without the layer (before), with it for a client that does
// not declare the extension, and for one that does (the call runs apart
// and answers as before). Compare the ns/op of one run:
//
//	go test -run '^$' -bench CallWithinBudget -benchtime 20000x ./taskext/
func BenchmarkCallWithinBudget(b *testing.B) {
	for _, bc := range []struct {
		name  string
		layer bool
		meta  map[string]any
	}{
		{"before: no layer", false, plain},
		{"layer, client without tasks", true, plain},
		{"layer, client with tasks", true, declaring},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tool := sleeper(mcp.TaskSupportOptional)
			opts := []server.ServerOption{server.WithToolCapabilities(false)}
			m := New(Options{})
			if bc.layer {
				opts = append(opts, m.ServerOptions()...)
			}
			s := server.NewMCPServer("b", "1", opts...)
			s.AddTools(tool)
			m.Adapt(s)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cr, cw := io.Pipe() // client -> server
			sr, sw := io.Pipe() // server -> client
			var in io.Reader = cr
			var out io.Writer = sw
			lctx := ctx
			if bc.layer {
				lctx, in, out = m.Stdio(ctx, cr, sw)
			}
			go func() { _ = server.NewStdioServer(s).Listen(lctx, in, out) }()
			defer cw.Close()
			sc := bufio.NewScanner(sr)
			sc.Buffer(make([]byte, 1<<20), 1<<22)
			meta, _ := json.Marshal(bc.meta)
			b.ResetTimer()
			for i := range b.N {
				fmt.Fprintf(cw, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleeper","arguments":{"seconds":0},"_meta":%s}}`+"\n", i+1, meta)
				for sc.Scan() {
					var r struct {
						ID *int `json:"id"`
					}
					if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID != nil && *r.ID == i+1 {
						break
					}
				}
			}
			b.StopTimer()
		})
	}
}
