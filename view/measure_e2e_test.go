package view_test

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestMeasureViewLoad measures the live view on 16 busy panes (4 sessions
// of 4, each printing a line every 20 ms): tmux-mcp's and tmux's CPU with
// nobody watching, then with one watcher reading /view/stream, and the
// bytes a second that watcher receives:
//
//	TMUX_MCP_MEASURE=1 go test -run MeasureViewLoad -v ./view/
func TestMeasureViewLoad(t *testing.T) {
	if os.Getenv("TMUX_MCP_MEASURE") != "1" {
		t.Skip("a measurement: TMUX_MCP_MEASURE=1 runs it")
	}
	const busy = `exec python3 -c 'import sys, time
n = 0
while True:
    n += 1
    sys.stdout.write("\x1b[32m%s\x1b[0m line %d of a busy pane\n" % (time.strftime("%H:%M:%S"), n)); sys.stdout.flush(); time.sleep(0.02)'`
	tm := tmuxtest.New(t)
	for i := range 4 {
		name := fmt.Sprintf("busy%d", i)
		tm.MustTmux("new-session", "-d", "-s", name, "-x", "160", "-y", "48", busy)
		for range 3 {
			tm.MustTmux("split-window", "-t", name, busy)
			tm.MustTmux("select-layout", "-t", name, "tiled")
		}
	}
	p := e2etest.StartHTTP(t, tm, "--view")
	base := strings.TrimSuffix(p.URL, "/mcp")
	// The supervisor adopts the server on the first call.
	c := p.Client(t, nil)
	e2etest.CallTool(t, c, "list_sessions", nil)
	mcpPID, tmuxPID := p.Cmd.Process.Pid, tm.PID()
	const window = 10 * time.Second

	cpu0, tcpu0 := cpuSeconds(t, mcpPID), cpuSeconds(t, tmuxPID)
	time.Sleep(window)
	idle, tidle := (cpuSeconds(t, mcpPID)-cpu0)/window.Seconds(), (cpuSeconds(t, tmuxPID)-tcpu0)/window.Seconds()

	req, _ := http.NewRequest(http.MethodGet, base+"/view/stream", nil)
	req.Header.Set("Authorization", "Bearer "+p.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var bytes, frames atomic.Int64
	go func() {
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			bytes.Add(int64(len(line)))
			if line == "event: frame\n" {
				frames.Add(1)
			}
		}
	}()
	// The first second is keyframes; measure the steady state after it.
	time.Sleep(2 * time.Second)
	b0, f0 := bytes.Load(), frames.Load()
	cpu0, tcpu0 = cpuSeconds(t, mcpPID), cpuSeconds(t, tmuxPID)
	time.Sleep(window)
	watched, twatched := (cpuSeconds(t, mcpPID)-cpu0)/window.Seconds(), (cpuSeconds(t, tmuxPID)-tcpu0)/window.Seconds()
	bps := float64(bytes.Load()-b0) / window.Seconds()
	fps := float64(frames.Load()-f0) / window.Seconds()
	t.Logf("16 busy panes (each a line every 20 ms), %s each:", window)
	t.Logf("  nobody watching: tmux-mcp %.1f%% CPU, tmux %.1f%% CPU", idle*100, tidle*100)
	t.Logf("  one watcher:     tmux-mcp %.1f%% CPU, tmux %.1f%% CPU; %.0f bytes/s (%.1f KiB/s) to the browser, %.1f frames/s (%.1f per pane)",
		watched*100, twatched*100, bps, bps/1024, fps, fps/16)
}

// cpuSeconds is a process's user and system CPU time so far.
func cpuSeconds(t *testing.T, pid int) float64 {
	t.Helper()
	f := e2etest.ProcStat(pid)
	if len(f) < 13 {
		t.Fatalf("process %d is gone", pid)
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ
}

// TestMeasureViewFrameLatency measures the time from a line written to a
// pane's terminal to the frame that holds it, at a client of
// /view/stream (no browser): lines 150 ms apart (each frame the first
// after a quiet pane), then 20 ms after the last frame (each waits for the
// pane's next frame: at most 10 a second):
//
//	TMUX_MCP_MEASURE=1 go test -run MeasureViewFrameLatency -v ./view/
func TestMeasureViewFrameLatency(t *testing.T) {
	if os.Getenv("TMUX_MCP_MEASURE") != "1" {
		t.Skip("a measurement: TMUX_MCP_MEASURE=1 runs it")
	}
	v := startViewServer(t)
	req, _ := http.NewRequest(http.MethodGet, v.base+"/view/stream", nil)
	req.Header.Set("Authorization", "Bearer "+v.p.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	seen := make(chan string, 100)
	go func() {
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(seen)
				return
			}
			if i := strings.Index(line, "LAT-"); i >= 0 && len(line) >= i+10 {
				seen <- line[i : i+10]
			}
		}
	}()
	for _, gap := range []time.Duration{150 * time.Millisecond, 20 * time.Millisecond} {
		var lat []float64
		for i := range 40 {
			mark := fmt.Sprintf("LAT-%03d-%02d", gap.Milliseconds(), i)
			at := time.Now()
			v.say(t, mark)
			for m := range seen {
				if m == mark {
					break
				}
			}
			lat = append(lat, float64(time.Since(at).Microseconds())/1000)
			time.Sleep(gap)
		}
		slices.Sort(lat)
		t.Logf("lines %v apart: write to frame p50 %.1f ms, p95 %.1f ms (%d lines)", gap, lat[len(lat)/2], lat[len(lat)*95/100], len(lat))
	}
}
