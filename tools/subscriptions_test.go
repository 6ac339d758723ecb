package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// catPane opens a pane running cat in session main: silent until keys
// arrive, then it prints them (the terminal echoes them as well).
func (e *env) catPane() string {
	e.t.Helper()
	return e.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main", "exec cat")
}

// readContent reads a pane's content resource through client c.
func readContent(t *testing.T, c interface {
	ReadResource(context.Context, mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error)
}, uri string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var req mcp.ReadResourceRequest
	req.Params.URI = uri
	res, err := c.ReadResource(ctx, req)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	return res.Contents[0].(mcp.TextResourceContents).Text
}

// TestSubscribePaneContent: a subscribed pane's output is an update,
// until unsubscribed.
func TestSubscribePaneContent(t *testing.T) {
	e := newEnv(t, Readonly)
	a, b := e.catPane(), e.catPane()
	c, n := legacyClient(t, e.srv)
	uriA, uriB := mcpserver.ContentURI(a), mcpserver.ContentURI(b)
	for _, uri := range []string{uriA, uriB} {
		if err := subscribe(c, uri); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	if got := e.srv.Subscriptions(); got != 2 {
		t.Fatalf("subscriptions = %d, want 2", got)
	}

	i := n.len()
	start := time.Now()
	e.tmux("send-keys", "-t", a, "hello-sub", "Enter")
	got := n.wait(t, i, 5*time.Second, "update of "+uriA, updated(uriA))
	t.Logf("send-keys to notifications/resources/updated: %v (in-process, exec send-keys included)", got.at.Sub(start))
	if text := readContent(t, c, uriA); !strings.Contains(text, "hello-sub") {
		t.Errorf("content after the update = %q, want it to contain hello-sub", text)
	}

	if err := unsubscribe(c, uriA); err != nil {
		t.Fatalf("unsubscribe: %v", err)
	}
	if got := e.srv.Subscriptions(); got != 1 {
		t.Errorf("subscriptions after unsubscribe = %d, want 1", got)
	}
	i = n.len()
	e.tmux("send-keys", "-t", a, "after-unsub", "Enter")
	tmuxtest.WaitFor(t, 5*time.Second, "pane A to print", func() bool {
		return strings.Contains(e.tmux("capture-pane", "-p", "-t", a), "after-unsub")
	})
	e.tmux("send-keys", "-t", b, "to-b", "Enter")
	n.wait(t, i, 5*time.Second, "update of "+uriB, updated(uriB))
	// Absence cannot be awaited: give a stray update three hold-offs to
	// show up.
	time.Sleep(300 * time.Millisecond)
	for _, x := range n.since(i) {
		if updated(uriA)(x) {
			t.Errorf("update of %s after unsubscribe: %s", uriA, x.raw)
		}
	}
}

// TestSubscribedSilentPaneCostsNothing: a subscribed pane that prints
// nothing makes tmux-mcp send tmux no command at all, not even a barrier.
func TestSubscribedSilentPaneCostsNothing(t *testing.T) {
	e := newEnv(t, Readonly)
	pane := e.catPane()
	c, _ := legacyClient(t, e.srv)
	var mu sync.Mutex
	var seen []supervisor.Event
	unsub := e.sup.Subscribe(func(ev supervisor.Event) {
		if ev.Type == supervisor.EventCommand || ev.Type == supervisor.EventBarrier {
			mu.Lock()
			seen = append(seen, ev)
			mu.Unlock()
		}
	})
	defer unsub()
	if err := subscribe(c, mcpserver.ContentURI(pane)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	before := len(seen)
	mu.Unlock()
	time.Sleep(time.Second) // the silence being measured
	mu.Lock()
	defer mu.Unlock()
	for _, ev := range seen[before:] {
		t.Errorf("tmux work while the subscribed pane was silent: %s %s", ev.Type, ev.Command)
	}
	t.Logf("subscribing took %d commands and barriers; 1 s of silence took %d", before, len(seen)-before)
}

// TestSubscribePaneKilledIsAnUpdate: the pane or its session going is an
// update.
func TestSubscribePaneKilledIsAnUpdate(t *testing.T) {
	e := newEnv(t, Readonly)
	pane := e.catPane()
	c, n := legacyClient(t, e.srv)
	uri := mcpserver.ContentURI(pane)
	if err := subscribe(c, uri); err != nil {
		t.Fatal(err)
	}
	i := n.len()
	e.tmux("kill-pane", "-t", pane)
	n.wait(t, i, 5*time.Second, "update after kill-pane", updated(uri))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var req mcp.ReadResourceRequest
	req.Params.URI = uri
	if _, err := c.ReadResource(ctx, req); err == nil || !strings.Contains(err.Error(), "Pane not found") {
		t.Errorf("read after kill: %v, want Pane not found", err)
	}

	// A pane whose session ends: its watcher ends, which is an update,
	// and the subscription stays (dormant) until unsubscribed.
	e.tmux("new-session", "-d", "-s", "solo", "exec cat")
	solo := e.tmux("display-message", "-p", "-t", "solo", "#{pane_id}")
	uri2 := mcpserver.ContentURI(solo)
	if err := subscribe(c, uri2); err != nil {
		t.Fatal(err)
	}
	i = n.len()
	e.tmux("kill-session", "-t", "solo")
	n.wait(t, i, 5*time.Second, "update after kill-session", updated(uri2))
	if err := unsubscribe(c, uri2); err != nil {
		t.Errorf("unsubscribe a dormant subscription: %v", err)
	}
}

func TestSubscribeRefusesWhatItCannotWatch(t *testing.T) {
	e := newEnv(t, Readonly)
	c, _ := legacyClient(t, e.srv)
	missing := "Pane not found: %999"
	for _, tt := range []struct{ uri, want string }{
		{"tmux://panes/%25999/content", missing},
		{"tmux://panes/abc/content", "pane_id must be a pane ID like %3"},
		{"tmux://panes/%250", "not subscribable: pane metadata"},
		{"tmux://sessions/nope", "Session not found: nope"},
		{"tmux://sessions?socket_name=a%2Fb", "argument socket_name"},
		{"tmux://nothing", "not a subscribable tmux-mcp resource"},
		{"file:///etc/passwd", "not a subscribable tmux-mcp resource"},
	} {
		err := subscribe(c, tt.uri)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("subscribe %s: got %v, want an error containing %q", tt.uri, err, tt.want)
		}
	}
	if got := e.srv.Subscriptions(); got != 0 {
		t.Errorf("refused subscriptions left %d behind", got)
	}
	for _, uri := range []string{"tmux://sessions", "tmux://sessions/main", "tmux://sessions/main/windows",
		"tmux://sessions/main/windows/0", "tmux://health"} {
		if err := subscribe(c, uri); err != nil {
			t.Errorf("subscribe %s: %v", uri, err)
		}
	}
}

// TestSubscribeExecOnly: without control mode nothing tells tmux-mcp that
// a pane printed or a session came, so those subscriptions are refused
// with the reason; tmux://health still works.
func TestSubscribeExecOnly(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	cfg := testConfig(tm)
	cfg.ExecOnly = true
	e := newEnvOver(t, tm, cfg, Readonly)
	pane := e.catPane()
	c, _ := legacyClient(t, e.srv)
	for _, uri := range []string{mcpserver.ContentURI(pane), "tmux://sessions"} {
		if err := subscribe(c, uri); err == nil || !strings.Contains(err.Error(), "exec-only") {
			t.Errorf("subscribe %s in exec-only mode: got %v, want an error naming exec-only", uri, err)
		}
	}
	if err := subscribe(c, "tmux://health"); err != nil {
		t.Errorf("subscribe tmux://health in exec-only mode: %v", err)
	}
}

// TestSubscriptionsEndWithTheSession: a client's subscriptions and their
// goroutines end with its session.
func TestSubscriptionsEndWithTheSession(t *testing.T) {
	e := newEnv(t, Readonly)
	pane := e.catPane()
	c, _ := legacyClient(t, e.srv)
	uris := []string{mcpserver.ContentURI(pane), "tmux://sessions", "tmux://health"}
	for _, uri := range uris {
		if err := subscribe(c, uri); err != nil {
			t.Fatal(err)
		}
	}
	if got := e.srv.Subscriptions(); got != len(uris) {
		t.Fatalf("subscriptions = %d, want %d", got, len(uris))
	}
	// The goroutines start after mcp-go has acknowledged the subscription
	// (which may be after the client has its answer), and are on the stack
	// for a moment after they signalled their end: await both.
	tmuxtest.WaitFor(t, 5*time.Second, fmt.Sprint(len(uris), " subscription goroutines"), func() bool {
		return goroutinesIn("(*subscription).run") == len(uris)
	})
	c.Close()
	if got := e.srv.Subscriptions(); got != 0 {
		t.Errorf("subscriptions after the client closed = %d, want 0", got)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "no subscription goroutine after the client closed", func() bool {
		return goroutinesIn("(*subscription).run") == 0
	})
}

func TestSubscribeSessionListings(t *testing.T) {
	e := newEnv(t, Readonly)
	c, n := legacyClient(t, e.srv)
	for _, uri := range []string{"tmux://sessions", "tmux://sessions/main/windows"} {
		if err := subscribe(c, uri); err != nil {
			t.Fatal(err)
		}
	}
	i := n.len()
	e.tmux("new-session", "-d", "-s", "second")
	n.wait(t, i, 5*time.Second, "update of tmux://sessions", updated("tmux://sessions"))
	i = n.len()
	e.tmux("new-window", "-d", "-t", "main")
	n.wait(t, i, 5*time.Second, "update of tmux://sessions/main/windows", updated("tmux://sessions/main/windows"))
}

// TestSubscribeSessionsFirst: tmux://sessions subscribed before anything
// else reached the server (it names no session to look up) still gets an
// update when a session comes, in both protocol eras. It did not: its
// updates come from the server's control connection, which nothing had
// opened.
func TestSubscribeSessionsFirst(t *testing.T) {
	const uri = "tmux://sessions"
	tests := []struct {
		name   string
		listen bool
	}{
		{"resources/subscribe", false},
		{"subscriptions/listen", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Readonly)
			var n *notes
			if tt.listen {
				n = newNotes()
				e.c.OnNotification(n.add)
				stop, err := e.c.ListenAsync(context.Background(), mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}},
					func(err error) { t.Errorf("listen: %v", err) })
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(stop)
			} else {
				var c *client.Client
				c, n = legacyClient(t, e.srv)
				if err := subscribe(c, uri); err != nil {
					t.Fatal(err)
				}
			}
			tmuxtest.WaitFor(t, 5*time.Second, "the subscription", func() bool { return e.srv.Subscriptions() == 1 })
			i := n.len()
			e.tmux("new-session", "-d", "-s", "second")
			n.wait(t, i, 5*time.Second, "update of "+uri, updated(uri))
		})
	}
}

// TestListenStreamSubscriptions: a client of protocol 2026-07-28 names
// resources in subscriptions/listen; updates come on that stream and stop
// with it, on every tmux (3.2a through a pipe feed).
func TestListenStreamSubscriptions(t *testing.T) {
	e := newEnv(t, Readonly)
	pane := e.catPane()
	uri := mcpserver.ContentURI(pane)
	n := newNotes()
	e.c.OnNotification(n.add)
	stop, err := e.c.ListenAsync(context.Background(), mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}},
		func(err error) { t.Errorf("listen: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the listen stream's subscription", func() bool { return e.srv.Subscriptions() == 1 })
	i := n.len()
	e.tmux("send-keys", "-t", pane, "hello-listen", "Enter")
	n.wait(t, i, 5*time.Second, "update on the listen stream", updated(uri))
	stop()
	tmuxtest.WaitFor(t, 5*time.Second, "the subscription to end with the stream", func() bool { return e.srv.Subscriptions() == 0 })
}

// TestSubscribeAnyRequestID: a request ID may be any JSON a client sends;
// none may take the server down.
func TestSubscribeAnyRequestID(t *testing.T) {
	e := newEnv(t, Readonly)
	session := server.NewInProcessSession("odd-ids", nil)
	if err := e.srv.MCP.RegisterSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	ctx := e.srv.MCP.WithContext(context.Background(), session)
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`
	e.srv.MCP.HandleMessage(ctx, []byte(init))
	for _, id := range []string{`{"a":1}`, `[1,2]`, `1`, `"1"`, `null`} {
		msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"resources/subscribe","params":{"uri":"tmux://health"}}`
		if resp := e.srv.MCP.HandleMessage(ctx, []byte(msg)); resp == nil && id != "null" {
			t.Errorf("id %s: no response", id)
		}
	}
	e.srv.MCP.UnregisterSession(context.Background(), "odd-ids")
	if got := e.srv.Subscriptions(); got != 0 {
		t.Errorf("%d subscriptions left after the session ended", got)
	}
}
