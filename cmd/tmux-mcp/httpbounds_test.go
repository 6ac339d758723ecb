package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// peakRSS is a process's resident set high-water mark (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/PID/status")
	return 0
}

// dial opens a raw connection to the server of p.
func dial(t *testing.T, p *httpProc) net.Conn {
	t.Helper()
	u, err := url.Parse(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// requestHead is the head of a POST /mcp with the given extra header
// lines.
func requestHead(extra ...string) string {
	return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\n" + strings.Join(extra, "") + "\r\n"
}

// TestHTTPBodyLimit: a 50 MB body gets 413, whether its size is declared
// or it comes chunked, and the server never holds it: its peak RSS grows
// by less than the body's size.
func TestHTTPBodyLimit(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := startHTTP(t, tm)
	if resp, _ := p.Post(t, nil, initializeBody, p.Auth()); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %s", resp.Status)
	}
	before := peakRSS(t, p.Cmd.Process.Pid)
	const size = 50 << 20
	chunk := strings.Repeat(" ", 1<<20)
	auth := "Authorization: Bearer " + p.Token + "\r\n"
	for _, tt := range []struct {
		name  string
		head  string
		chunk func(string) string // how one MiB of body is framed
	}{
		{"content-length", requestHead(auth, "Content-Length: "+strconv.Itoa(size)+"\r\n"), func(s string) string { return s }},
		{"chunked", requestHead(auth, "Transfer-Encoding: chunked\r\n"), func(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, p)
			go func() {
				// Fails once the server has answered and closed: expected.
				if _, err := io.WriteString(c, tt.head); err != nil {
					return
				}
				for range size / len(chunk) {
					if _, err := io.WriteString(c, tt.chunk(chunk)); err != nil {
						return
					}
				}
			}()
			c.SetReadDeadline(time.Now().Add(30 * time.Second)) //nolint:errcheck // a dead conn fails the read
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("read response: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("status %s, want 413", resp.Status)
			}
		})
	}
	if grew := peakRSS(t, p.Cmd.Process.Pid) - before; grew > 24<<20 {
		t.Errorf("peak RSS grew by %d MiB for two refused 50 MiB bodies; want under 24 MiB", grew>>20)
	}
	if resp, body := p.Post(t, nil, `{"jsonrpc":"2.0","id":1,"method":"ping"`+strings.Repeat(" ", 1<<20)+`}`, p.Auth()); resp.StatusCode == http.StatusRequestEntityTooLarge {
		t.Errorf("a 1 MiB body: %s %s, want it read", resp.Status, body)
	}
}

// TestHTTPSlowBody: connections that send a request's head and then
// trickle, or stop sending, its body are cut by --http-read-timeout,
// with or without the token.
func TestHTTPSlowBody(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := startHTTP(t, tm, "--http-read-timeout", "1s")
	var conns []net.Conn
	for i := range 20 {
		extra := []string{"Content-Length: 1000\r\n"}
		if i%2 == 0 {
			extra = append(extra, "Authorization: Bearer "+p.Token+"\r\n")
		}
		c := dial(t, p)
		if _, err := io.WriteString(c, requestHead(extra...)+`{"jsonrpc"`); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// A generous bound, far above the 1s timeout: the point is that the
	// server ends the connections, not how fast.
	deadline := time.Now().Add(20 * time.Second)
	for i, c := range conns {
		c.SetReadDeadline(deadline) //nolint:errcheck // a dead conn fails the read
		got, err := io.ReadAll(c)
		if err != nil {
			t.Errorf("connection %d: %v after %q; want the server to close it", i, err, got)
		}
	}
}

// TestHTTPConnLimit: past --http-max-conns open connections a new one is
// answered 503 at once, and is served again when one closes.
func TestHTTPConnLimit(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := startHTTP(t, tm, "--http-max-conns", "3", "--http-read-header-timeout", "1m")
	// get sends a GET of an unserved path on c and returns the status: a
	// round trip that proves the connection holds a slot, and keeps it.
	get := func(c net.Conn) int {
		t.Helper()
		c.SetDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck // a dead conn fails the write
		if _, err := io.WriteString(c, "GET /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "+p.Token+"\r\n\r\n"); err != nil {
			return 0
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	var held []net.Conn
	for range 3 {
		c := dial(t, p)
		if got := get(c); got != http.StatusNotFound {
			t.Fatalf("connection %d: status %d, want 404", len(held), got)
		}
		held = append(held, c)
	}
	for range 5 {
		if got := get(dial(t, p)); got != http.StatusServiceUnavailable {
			t.Errorf("connection over the limit: status %d, want 503", got)
		}
	}
	held[0].Close()
	tmuxtest.WaitFor(t, 10*time.Second, "a slot freed by a closed connection", func() bool {
		return get(dial(t, p)) == http.StatusNotFound
	})
}

// TestHTTPLongCallOutlivesReadTimeout: the read timeout bounds reading a
// request, not the reply (there is no write timeout): a tool call that
// waits longer than the read timeout still answers.
func TestHTTPLongCallOutlivesReadTimeout(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := startHTTP(t, tm, "--http-read-timeout", "1s")
	c := p.Client(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "wait_for_text"
	req.Params.Arguments = map[string]any{"session_name": "main", "patterns": []string{"never printed 4f7c"}, "timeout": 3}
	start := time.Now()
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("wait_for_text: %v\nstderr:\n%s", err, p.Stderr)
	}
	if waited := time.Since(start); waited < 3*time.Second {
		t.Errorf("wait_for_text returned after %v: %v; want it to wait its 3s", waited, res.Content)
	}
}
