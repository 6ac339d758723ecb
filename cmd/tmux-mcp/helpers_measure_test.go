package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestMeasureHelperProcesses measures what tmux-mcp runs beside itself to
// talk to tmux: the built binary on a server with three sessions, each
// captured twice (which opens a watcher connection per session), then
// the binary's child processes and their memory, its own, and the control
// clients tmux lists:
//
//	TMUX_MCP_MEASURE=1 go test -run MeasureHelperProcesses -v ./cmd/tmux-mcp/
//
// TMUX_MCP_TEST_BIN names another build to measure (an older one, say).
func TestMeasureHelperProcesses(t *testing.T) {
	if os.Getenv("TMUX_MCP_MEASURE") != "1" {
		t.Skip("a measurement: TMUX_MCP_MEASURE=1 runs it")
	}
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	var panes []string
	for i := range 3 {
		panes = append(panes, strings.TrimSpace(tm.MustTmux("new-session", "-d", "-P", "-F", "#{pane_id}",
			"-s", fmt.Sprintf("s%d", i), "exec cat")))
	}
	c, cmd, _ := startStdio(t, bin, binaryEnv(tm.Socket))
	defer c.Close()
	for range 2 {
		for _, p := range panes {
			capturePane(t, c, p)
		}
	}
	pid := cmd.Process.Pid
	var kids []int
	var kidRSS int64
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		n, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if ppid, rss := procParentRSS(n); ppid == pid {
			kids = append(kids, n)
			kidRSS += rss
		}
	}
	_, selfRSS := procParentRSS(pid)
	clients := strings.Count(strings.TrimSpace(tm.MustTmux("list-clients", "-F", "#{client_control_mode}")), "1")
	t.Logf("tmux-mcp %s: %d child processes (%.1f MiB RSS in all), its own RSS %.1f MiB; tmux lists %d control clients; watchers %d",
		filepath.Base(bin), len(kids), float64(kidRSS)/(1<<20), float64(selfRSS)/(1<<20), clients, watchersOf(t, c))
}

// procParentRSS returns a process's parent PID and resident memory in
// bytes, from /proc (0, 0 when it is gone).
func procParentRSS(pid int) (int, int64) {
	f := e2etest.ProcStat(pid)
	if len(f) < 22 {
		return 0, 0
	}
	ppid, _ := strconv.Atoi(f[1])
	pages, _ := strconv.ParseInt(f[21], 10, 64)
	return ppid, pages * int64(os.Getpagesize())
}
