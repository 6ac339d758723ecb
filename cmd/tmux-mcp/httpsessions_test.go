package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// initializeSessions opens n sessions on p and returns their IDs.
func initializeSessions(t *testing.T, p *httpProc, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		resp, body := p.Post(t, nil, initializeBody, p.Auth())
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize under the cap: %s %s", resp.Status, body)
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	return ids
}

// pingSession sends a ping in session and returns the status.
func pingSession(t *testing.T, p *httpProc, session string) int {
	t.Helper()
	resp, _ := p.Post(t, nil, `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		map[string]string{"Authorization": "Bearer " + p.Token, "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"})
	return resp.StatusCode
}

// TestHTTPSessionCap: initializes past --http-max-sessions get 503 and
// make no session, and the sessions under the cap live on. The TTL is
// an hour, so that no session can expire during the burst however long a
// loaded machine takes to answer it: with a TTL of a second, the burst
// outlasted it under load, the first sessions expired and made room.
func TestHTTPSessionCap(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := startHTTP(t, tm, "--http-max-sessions", "3", "--http-session-ttl", "1h")
	first := initializeSessions(t, p, 3)
	// A burst, concurrent, as an attacker would send it: none gets in.
	var wg sync.WaitGroup
	codes := make(chan int, 100)
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, p.URL, strings.NewReader(initializeBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+p.Token)
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
			if err != nil {
				codes <- 0
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != http.StatusServiceUnavailable {
			t.Errorf("initialize over the cap: status %d, want 503", code)
			break
		}
	}
	for _, s := range first {
		if got := pingSession(t, p, s); got != http.StatusOK {
			t.Errorf("ping in a live session: %d, want 200", got)
		}
	}
}

// TestHTTPSessionTTL: sessions idle for --http-session-ttl end (404),
// which makes room under --http-max-sessions for new ones.
func TestHTTPSessionTTL(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := startHTTP(t, tm, "--http-max-sessions", "3", "--http-session-ttl", "1s")
	first := initializeSessions(t, p, 3)
	tmuxtest.WaitFor(t, 20*time.Second, "idle sessions to expire and an initialize to get in", func() bool {
		resp, _ := p.Post(t, nil, initializeBody, p.Auth())
		return resp.StatusCode == http.StatusOK
	})
	// Sessions expire on the sweeper's tick (every second), each once it
	// has been idle for the TTL; one pinged after the burst may outlive
	// the first to go by a tick, and a ping that finds it alive makes it
	// active again. So each is asked again only after it has had the time
	// to expire since: watching it more often would keep it alive.
	for _, s := range first {
		got := pingSession(t, p, s)
		for try := 0; got == http.StatusOK && try < 5; try++ {
			time.Sleep(2500 * time.Millisecond) // > TTL (1s) + a sweep (1s)
			got = pingSession(t, p, s)
		}
		if got != http.StatusNotFound {
			t.Errorf("ping in a session idle for longer than the TTL: %d, want 404", got)
		}
	}
}
