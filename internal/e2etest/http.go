package e2etest

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// HTTP is the binary serving streamable HTTP.
type HTTP struct {
	Cmd       *exec.Cmd
	Stderr    *Buffer
	URL       string // http://127.0.0.1:PORT/mcp, or http://localhost/mcp on a socket
	TokenFile string // "" with --http-no-auth
	Token     string
	Runtime   string // $XDG_RUNTIME_DIR of the process

	done chan struct{} // closed when the process has exited
	err  error         // its exit, once done
}

var (
	listeningURL = regexp.MustCompile(`msg=listening url=(\S+)`)
	tokenFileRE  = regexp.MustCompile(`token_file=(\S+)`)
)

// StartHTTP starts the binary on tm's server with args (--http
// 127.0.0.1:0 unless args name --http-socket or --http), waits until it
// listens, and reads the token it generated. SIGTERM and a wait end it at
// cleanup.
func StartHTTP(t *testing.T, tm *tmuxtest.Server, args ...string) *HTTP {
	t.Helper()
	bin := Binary(t)
	if !slices.Contains(args, "--http-socket") && !slices.Contains(args, "--http") {
		args = append([]string{"--http", "127.0.0.1:0"}, args...)
	}
	p := &HTTP{Stderr: &Buffer{}, Runtime: t.TempDir(), done: make(chan struct{})}
	p.Cmd = exec.Command(bin, append([]string{"serve"}, args...)...)
	p.Cmd.Env = Env(tm.Socket, "XDG_RUNTIME_DIR="+p.Runtime)
	p.Cmd.Stderr = p.Stderr
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.Cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.Stop(t) })
	tmuxtest.WaitFor(t, 10*time.Second, "HTTP listener", func() bool {
		return listeningURL.MatchString(p.Stderr.String()) || p.Exited()
	})
	line := p.Stderr.String()
	m := listeningURL.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("tmux-mcp exited (%v) before listening; stderr:\n%s", p.err, line)
	}
	p.URL = m[1]
	if m := tokenFileRE.FindStringSubmatch(line); m != nil {
		p.TokenFile = m[1]
		b, err := os.ReadFile(p.TokenFile)
		if err != nil {
			t.Fatal(err)
		}
		p.Token = strings.TrimSpace(string(b))
	}
	return p
}

// Exited reports whether the process has exited.
func (p *HTTP) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop ends the process with SIGTERM and returns how it exited.
func (p *HTTP) Stop(t *testing.T) error {
	t.Helper()
	if !p.Exited() {
		p.Cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // may have exited meanwhile
	}
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.Cmd.Process.Kill() //nolint:errcheck // stuck: the test fails anyway
		<-p.done
		t.Errorf("tmux-mcp did not stop on SIGTERM; stderr:\n%s", p.Stderr)
	}
	return p.err
}

// Post sends body to the server with the headers given ("Authorization"
// among them, or not) and returns the response, its body read.
func (p *HTTP) Post(t *testing.T, hc *http.Client, body string, headers map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// Auth is the Authorization header of the server's token.
func (p *HTTP) Auth() map[string]string {
	return map[string]string{"Authorization": "Bearer " + p.Token}
}

// Client returns an initialized MCP client of the server, over hc when
// not nil; it is closed when the test ends.
func (p *HTTP) Client(t *testing.T, hc *http.Client) *client.Client {
	t.Helper()
	opts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(p.Auth())}
	if hc != nil {
		opts = append(opts, transport.WithHTTPBasicClient(hc))
	}
	c, err := client.NewStreamableHttpClient(p.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e-http", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v\nstderr:\n%s", err, p.Stderr)
	}
	return c
}
