package tools

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// teeEvents delivers the supervisor's events and lets the test inject its
// own.
type teeEvents struct {
	sup  *supervisor.Supervisor
	fake fakeEvents
}

func (t *teeEvents) Subscribe(fn func(supervisor.Event)) func() {
	a, b := t.sup.Subscribe(fn), t.fake.Subscribe(fn)
	return func() { a(); b() }
}

var levelRank = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// TestLogServerDeath kills the tmux server with SIGKILL under two clients:
// one at level warning gets the death with its cause and nothing below
// warning (and an update of tmux://health, to which it subscribed); one at
// level debug gets the restart too. Neither sees a byte of
// the pane's text or the keys sent to it; a client of protocol 2026-07-28
// gets no log messages at all.
func TestLogServerDeath(t *testing.T) {
	tm := tmuxtest.New(t)
	pid := tm.Start("main")
	tee := &teeEvents{}
	e := newEnvOver(t, tm, testConfig(tm), Mutating, func(d *Deps) { tee.sup = d.Sup; d.Events = tee })
	modern := newNotes()
	e.c.OnNotification(modern.add)
	warn, nw := legacyClient(t, e.srv)
	debug, nd := legacyClient(t, e.srv)
	if err := setLevel(warn, mcp.LoggingLevelWarning); err != nil {
		t.Fatal(err)
	}
	if err := setLevel(debug, mcp.LoggingLevelDebug); err != nil {
		t.Fatal(err)
	}
	if err := subscribe(warn, mcpserver.URIHealth); err != nil {
		t.Fatal(err)
	}
	const marker = "MARKER-7f3a9c"
	pane := e.catPane()
	e.ok("list_sessions", nil, nil) // adopt the server
	e.tmux("send-keys", "-t", pane, marker, "Enter")
	tmuxtest.WaitFor(t, 5*time.Second, "the marker in the pane", func() bool {
		return strings.Count(e.tmux("capture-pane", "-p", "-t", pane), marker) >= 2
	})

	var mu sync.Mutex
	var restarted bool
	unsub := e.sup.Subscribe(func(ev supervisor.Event) {
		if ev.Type == supervisor.EventRestarted {
			mu.Lock()
			restarted = true
			mu.Unlock()
		}
	})
	defer unsub()
	if got := tm.PID(); got != pid {
		t.Fatalf("server on the test socket has pid %d, started %d; not signalling", got, pid)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	died := nw.wait(t, 0, 10*time.Second, "a server_died log message", func(x note) bool {
		d, _ := x.params["data"].(map[string]any)
		return isLog(x) && d["event"] == "server_died"
	})
	data := died.params["data"].(map[string]any)
	if died.Str("level") != "error" || died.Str("logger") != mcpserver.LoggerSupervisor || data["cause"] != "killed" ||
		data["pid"] != float64(pid) || data["socket"] != tm.Socket {
		t.Errorf("death message = %s, want level error, logger %s, cause killed, pid %d, socket %s", died.raw, mcpserver.LoggerSupervisor, pid, tm.Socket)
	}
	nw.wait(t, 0, 10*time.Second, "an update of tmux://health", updated(mcpserver.URIHealth))
	tmuxtest.WaitFor(t, 15*time.Second, "the supervisor to restart the server", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return restarted
	})
	if p := e.sup.Servers()[0].Health().PID; p > 0 {
		tm.Track(p)
	}
	// Log messages reach a session in order: once a warning injected
	// after the restart has arrived, the restart's notice would have too.
	tee.fake.emit(supervisor.Event{Type: supervisor.EventResourceWarning, Socket: tmux.Socket{Path: tm.Socket},
		Resource: "fds", Used: 7, Limit: 10, Ratio: 0.7})
	for _, n := range []*notes{nw, nd} {
		n.wait(t, 0, 10*time.Second, "the injected warning", func(x note) bool {
			d, _ := x.params["data"].(map[string]any)
			return isLog(x) && d["event"] == "resource_warning"
		})
	}
	nd.wait(t, 0, 5*time.Second, "the restart's notice at level debug", func(x note) bool {
		d, _ := x.params["data"].(map[string]any)
		return isLog(x) && d["event"] == "restarted" && x.Str("level") == "notice"
	})
	for _, x := range nw.since(0) {
		if isLog(x) && levelRank[x.Str("level")] < levelRank["warning"] {
			t.Errorf("client at level warning got %s", x.raw)
		}
	}
	for name, n := range map[string]*notes{"warning": nw, "debug": nd, "modern": modern} {
		for _, x := range n.since(0) {
			if strings.Contains(x.raw, marker) {
				t.Errorf("client %s: notification carries pane text or keys: %s", name, x.raw)
			}
			if name == "modern" && isLog(x) {
				t.Errorf("client of protocol 2026-07-28 got a log message: %s", x.raw)
			}
		}
	}
	t.Logf("at level debug: %s", nd.describe(0))
}

// TestLogRateLimitingSummarised: a burst of rate-limited calls becomes one
// message per server per second, with the counts.
func TestLogRateLimitingSummarised(t *testing.T) {
	ev := &fakeEvents{}
	e := newEnv(t, Readonly, func(d *Deps) { d.Events = ev })
	c, n := legacyClient(t, e.srv)
	if err := setLevel(c, mcp.LoggingLevelInfo); err != nil {
		t.Fatal(err)
	}
	a, b := tmux.Socket{Name: "a"}, tmux.Socket{Name: "b"}
	start := time.Now()
	for i := 0; i < 40; i++ {
		ev.emit(supervisor.Event{Type: supervisor.EventRateLimited, Socket: a, Pane: tmux.PaneID([]string{"%1", "%2"}[i%2])})
	}
	for i := 0; i < 10; i++ {
		ev.emit(supervisor.Event{Type: supervisor.EventRateLimited, Socket: a, Detail: "server"})
	}
	ev.emit(supervisor.Event{Type: supervisor.EventRateLimited, Socket: b})
	summary := func(sock string) func(note) bool {
		return func(x note) bool {
			d, _ := x.params["data"].(map[string]any)
			return isLog(x) && x.Str("logger") == mcpserver.LoggerRateLimit && d["socket"] == sock
		}
	}
	got := n.wait(t, 0, 5*time.Second, "the summary of a", summary("a"))
	n.wait(t, 0, 5*time.Second, "the summary of b", summary("b"))
	if got.at.Sub(start) < mcpserver.RateSummaryEvery {
		t.Errorf("summary after %v, want it to cover a window of %v", got.at.Sub(start), mcpserver.RateSummaryEvery)
	}
	d := got.params["data"].(map[string]any)
	if d["count"] != float64(50) || d["pane_limited"] != float64(40) || d["server_limited"] != float64(10) || d["panes"] != float64(2) ||
		got.Str("level") != "warning" {
		t.Errorf("summary = %s, want warning with count 50: 40 by 2 panes, 10 by the server", got.raw)
	}
	var msgs int
	for _, x := range n.since(0) {
		if summary("a")(x) {
			msgs++
		}
	}
	if msgs != 1 {
		t.Errorf("%d summaries of one burst, want 1:%s", msgs, n.describe(0))
	}
	// The next burst opens a new window.
	i := n.len()
	ev.emit(supervisor.Event{Type: supervisor.EventRateLimited, Socket: a})
	if x := n.wait(t, i, 5*time.Second, "the second summary", summary("a")); x.params["data"].(map[string]any)["count"] != float64(1) {
		t.Errorf("second summary = %s, want count 1", x.raw)
	}
}
