package main

import (
	"slices"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// BenchmarkJobEndPush measures how long a background job's end takes to
// reach a subscribed stdio client as notifications/resources/updated: from
// the write that lets the job finish (it waits on a fifo) to the
// notification's arrival, through the built binary. It reports the median
// and 95th percentile.
//
//	go test -run '^$' -bench JobEndPush -benchtime 100x ./cmd/tmux-mcp
func BenchmarkJobEndPush(b *testing.B) {
	bin := buildBinary(b)
	tm := tmuxtest.New(b)
	tm.Start("main")
	pane := bashPane(b, tm)
	f := makeFifo(b, tm.Dir, "fifo")
	c, pushed, _ := startLegacyStdio(b, bin, binaryEnv(tm.Socket, "TMUX_MCP_JOURNAL=off", "TMUX_MCP_SERVER_RATE=1000000"))
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		b.StopTimer()
		id := startJob(b, c, pane, `echo wa""its; read x < `+f)
		uri := "tmux://jobs/" + id
		if err := rpc(c, "resources/subscribe", map[string]any{"uri": uri}); err != nil {
			b.Fatal(err)
		}
		getJob(b, c, id, map[string]any{"timeout": 10, "patterns": []any{"waits"}})
		i := pushed.Len()
		b.StartTimer()
		start := time.Now()
		writeFifo(b, f, "")
		got := pushed.Wait(b, i, 10*time.Second, "resources/updated for "+uri, isUpdate(uri))
		lat = append(lat, got.At.Sub(start))
		b.StopTimer()
		if err := rpc(c, "resources/unsubscribe", map[string]any{"uri": uri}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1e3, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1e3, "p95-ms")
}
