package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestHTTPSessionCapAndTTL: initializes past --http-max-sessions get 503
// and make no session; sessions idle for --http-session-ttl end (404),
// which makes room for new ones.
func TestHTTPSessionCapAndTTL(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := startHTTP(t, tm, "--http-max-sessions", "3", "--http-session-ttl", "1s")
	var first []string
	for range 3 {
		resp, body := p.Post(t, nil, initializeBody, p.Auth())
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize under the cap: %s %s", resp.Status, body)
		}
		first = append(first, resp.Header.Get("Mcp-Session-Id"))
	}
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
	ping := func(session string) int {
		resp, _ := p.Post(t, nil, `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			map[string]string{"Authorization": "Bearer " + p.Token, "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"})
		return resp.StatusCode
	}
	if got := ping(first[0]); got != http.StatusOK {
		t.Errorf("ping in a live session: %d, want 200", got)
	}
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
		got := ping(s)
		for try := 0; got == http.StatusOK && try < 5; try++ {
			time.Sleep(2500 * time.Millisecond) // > TTL (1s) + a sweep (1s)
			got = ping(s)
		}
		if got != http.StatusNotFound {
			t.Errorf("ping in a session idle for longer than the TTL: %d, want 404", got)
		}
	}
}
