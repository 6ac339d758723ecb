package tools

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func (e *env) read(uri string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var req mcp.ReadResourceRequest
	req.Params.URI = uri
	res, err := e.c.ReadResource(ctx, req)
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		e.t.Fatalf("read %s: %d contents, want 1", uri, len(res.Contents))
	}
	return res.Contents[0].(mcp.TextResourceContents).Text, nil
}

func TestResources(t *testing.T) {
	e := newEnv(t, Readonly)
	pane := e.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main", "printf 'hello-resource\\n'; exec sleep 300")
	tmuxtest.WaitFor(t, 5*time.Second, "pane output", func() bool {
		out, _ := e.tm.Tmux("capture-pane", "-p", "-t", pane)
		return strings.Contains(out, "hello-resource")
	})
	esc := url.PathEscape(pane)
	tests := []struct {
		uri  string
		want []string
	}{
		{"tmux://sessions", []string{`"session_name": "main"`}},
		{"tmux://sessions/main", []string{`"session_name": "main"`, `"windows": [`}},
		{"tmux://sessions/main/windows", []string{`"window_index": "0"`}},
		{"tmux://sessions/main/windows/0", []string{`"panes": [`, `"pane_id": "` + pane + `"`}},
		{"tmux://panes/" + esc, []string{`"pane_id": "` + pane + `"`}},
		{"tmux://panes/" + esc + "/content", []string{"hello-resource"}},
		{"tmux://health", []string{`"state": "up"`}},
	}
	for _, tt := range tests {
		got, err := e.read(tt.uri)
		if err != nil {
			t.Errorf("read %s: %v", tt.uri, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("read %s = %s, want it to contain %s", tt.uri, got, w)
			}
		}
	}
	for uri, want := range map[string]string{
		"tmux://sessions/nope":           "Session not found: nope",
		"tmux://sessions/main/windows/9": "Window not found: index 9",
		"tmux://panes/%25999":            "Pane not found: %999",
	} {
		if _, err := e.read(uri); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("read %s: got error %v, want %q", uri, err, want)
		}
	}
}

// fakeEvents is an EventSource the test drives.
type fakeEvents struct {
	mu  sync.Mutex
	fns []func(supervisor.Event)
}

func (f *fakeEvents) Subscribe(fn func(supervisor.Event)) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fns = append(f.fns, fn)
	return func() {}
}

func (f *fakeEvents) emit(e supervisor.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fn := range f.fns {
		fn(e)
	}
}

func TestResourceListChangedOnStructureEvents(t *testing.T) {
	ev := &fakeEvents{}
	e := newEnv(t, Readonly, func(d *Deps) { d.Events = ev })
	got := make(chan string, 16)
	e.c.OnNotification(func(n mcp.JSONRPCNotification) { got <- n.Method })

	ev.emit(supervisor.Event{Type: supervisor.EventStructure, Notification: "layout-change"})
	ev.emit(supervisor.Event{Type: supervisor.EventCommand})
	ev.emit(supervisor.Event{Type: supervisor.EventStructure, Notification: "window-add"})
	select {
	case m := <-got:
		if m != "notifications/resources/list_changed" {
			t.Errorf("notification %q, want notifications/resources/list_changed", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no list_changed notification after a window-add event")
	}
	select {
	case m := <-got:
		t.Errorf("extra notification %q: a burst should coalesce and layout changes should not notify", m)
	case <-time.After(300 * time.Millisecond):
	}
}

// health is the part of server_health the tests read.
type health struct {
	State          string `json:"state"`
	PID            int    `json:"pid"`
	Owned          bool   `json:"owned"`
	Restarts       int    `json:"restarts"`
	LastDeathCause string `json:"last_death_cause"`
}

// TestServerKilledMidTest kills the tmux server under the supervisor with
// SIGKILL. The restart is slowed to 2s so that the window is certain: while
// the supervisor is restarting, tools fail fast with its error result;
// once it has brought a server back they work again.
func TestServerKilledMidTest(t *testing.T) {
	tm := tmuxtest.New(t)
	cfg := testConfig(tm)
	cfg.Restart = death.RestartPolicy{Initial: 2 * time.Second, Max: 2 * time.Second}
	e := newEnvOver(t, tm, cfg, Destructive)

	// The supervisor starts the server with the first call: its PID is the
	// only one this test signals.
	e.ok("create_session", map[string]any{"session_name": "before"}, nil)
	var h health
	e.ok("server_health", nil, &h)
	if h.State != "up" || h.PID <= 0 || !h.Owned {
		t.Fatalf("server_health = %+v, want state up with the PID of a server tmux-mcp started", h)
	}
	tm.Track(h.PID)
	if got := tm.PID(); got != h.PID {
		t.Fatalf("server on the test socket has pid %d, server_health says %d; not signalling", got, h.PID)
	}
	if err := syscall.Kill(h.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "server_health state restarting", func() bool {
		e.ok("server_health", nil, &h)
		return h.State == "restarting"
	})
	got := e.fails("list_sessions", nil, "tmux server restarting (attempt 1/5)", "[restarting]", "Retry in")
	t.Logf("list_sessions while restarting: %q", got)
	// Nothing runs, but the supervisor is about to start a server:
	// kill_server must say so rather than "nothing to kill".
	e.fails("kill_server", nil, "tmux server restarting (attempt 1/5)", "Retry in")

	var sessions sessionsResult
	tmuxtest.WaitFor(t, 15*time.Second, "list_sessions to succeed after recovery", func() bool {
		res := e.call("list_sessions", nil)
		if res.IsError {
			return false
		}
		if err := json.Unmarshal(structuredJSON(t, res), &sessions); err != nil {
			t.Fatalf("decode list_sessions: %v", err)
		}
		return true
	})
	for _, s := range sessions.Result {
		if s.SessionName != "before" { // no restorer yet: "before" may be gone
			t.Errorf("list_sessions after recovery has session %q, want none or the restored \"before\"", s.SessionName)
		}
	}
	var after health
	e.ok("server_health", nil, &after)
	tm.Track(after.PID)
	if after.State != "up" || after.Restarts < 1 || after.PID == h.PID || after.LastDeathCause != "killed" {
		t.Errorf("server_health after recovery = %+v, want up on a new PID with restarts >= 1 and last death killed", after)
	}
	e.ok("create_session", map[string]any{"session_name": "after"}, nil)
}
