package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// httpProc is the binary serving streamable HTTP.
type httpProc struct {
	cmd       *exec.Cmd
	done      chan struct{} // closed when the process has exited
	err       error         // its exit, once done
	stderr    *syncBuffer
	url       string // http://127.0.0.1:PORT/mcp, or http://localhost/mcp on a socket
	tokenFile string // "" with --http-no-auth
	token     string
	runtime   string // $XDG_RUNTIME_DIR of the process
}

var (
	listeningURL = regexp.MustCompile(`msg=listening url=(\S+)`)
	tokenFileRE  = regexp.MustCompile(`token_file=(\S+)`)
)

// startHTTP starts the binary on tm's server with args (--http
// 127.0.0.1:0 unless args name --http-socket), waits until it listens, and
// reads the token it generated. SIGTERM and a wait end it at cleanup.
func startHTTP(t *testing.T, tm *tmuxtest.Server, args ...string) *httpProc {
	t.Helper()
	bin := buildBinary(t)
	if !contains(args, "--http-socket") && !contains(args, "--http") {
		args = append([]string{"--http", "127.0.0.1:0"}, args...)
	}
	p := &httpProc{stderr: &syncBuffer{}, runtime: t.TempDir(), done: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"serve"}, args...)...)
	p.cmd.Env = binaryEnv(tm.Socket, "XDG_RUNTIME_DIR="+p.runtime)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.stop(t) })
	tmuxtest.WaitFor(t, 10*time.Second, "HTTP listener", func() bool {
		return listeningURL.MatchString(p.stderr.String()) || p.exited()
	})
	line := p.stderr.String()
	m := listeningURL.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("tmux-mcp exited (%v) before listening; stderr:\n%s", p.err, line)
	}
	p.url = m[1]
	if m := tokenFileRE.FindStringSubmatch(line); m != nil {
		p.tokenFile = m[1]
		b, err := os.ReadFile(p.tokenFile)
		if err != nil {
			t.Fatal(err)
		}
		p.token = strings.TrimSpace(string(b))
	}
	return p
}

func (p *httpProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the process with SIGTERM and returns how it exited.
func (p *httpProc) stop(t *testing.T) error {
	t.Helper()
	if !p.exited() {
		p.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // may have exited meanwhile
	}
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill() //nolint:errcheck // stuck: the test fails anyway
		<-p.done
		t.Errorf("tmux-mcp did not stop on SIGTERM; stderr:\n%s", p.stderr)
	}
	return p.err
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// post sends body to the server with the headers given ("Authorization"
// among them, or not) and returns the response, its body read.
func (p *httpProc) post(t *testing.T, hc *http.Client, body string, headers map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.url, strings.NewReader(body))
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

// auth is the Authorization header of the server's token.
func (p *httpProc) auth() map[string]string {
	return map[string]string{"Authorization": "Bearer " + p.token}
}

// client returns an initialized MCP client of the server, over hc when
// not nil.
func (p *httpProc) client(t *testing.T, hc *http.Client) *client.Client {
	t.Helper()
	opts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(p.auth())}
	if hc != nil {
		opts = append(opts, transport.WithHTTPBasicClient(hc))
	}
	c, err := client.NewStreamableHttpClient(p.url, opts...)
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
		t.Fatalf("initialize: %v\nstderr:\n%s", err, p.stderr)
	}
	return c
}

// noToken is the challenge of a request without a bearer token.
const noToken = `Bearer realm="tmux-mcp", error="invalid_request", error_description="no bearer token"`

// TestHTTPAuthAndOrigin: --http requires the bearer token it generated
// (400 without it, 403 with a wrong one: not 401, which MCP clients take
// for the start of OAuth; see httpmcp/auth.go), refuses
// a browser origin not on the allowlist and a Host that is not loopback
// (403), lets in this machine's pages and clients that send no Origin,
// and keeps the token out of its logs and removes its file at exit.
func TestHTTPAuthAndOrigin(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := startHTTP(t, tm)
	if p.token == "" {
		t.Fatalf("no token_file in the listening line; stderr:\n%s", p.stderr)
	}
	if want := filepath.Join(p.runtime, "tmux-mcp"); filepath.Dir(p.tokenFile) != want {
		t.Errorf("token file %s, want it in %s", p.tokenFile, want)
	}
	fi, err := os.Stat(p.tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	for _, tt := range []struct {
		name      string
		headers   map[string]string
		want      int
		challenge string
	}{
		{"no token", nil, http.StatusBadRequest, noToken},
		{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("x", len(p.token))}, http.StatusForbidden,
			`Bearer realm="tmux-mcp", error="invalid_token"`},
		{"token as basic auth", map[string]string{"Authorization": "Basic " + p.token}, http.StatusBadRequest, noToken},
		{"right token", p.auth(), http.StatusOK, ""},
		{"lower-case scheme", map[string]string{"Authorization": "bearer " + p.token}, http.StatusOK, ""},
		{"evil origin", map[string]string{"Authorization": "Bearer " + p.token, "Origin": "http://evil.example"}, http.StatusForbidden, ""},
		{"evil origin, no token", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden, ""},
		{"null origin", map[string]string{"Authorization": "Bearer " + p.token, "Origin": "null"}, http.StatusForbidden, ""},
		{"localhost look-alike", map[string]string{"Authorization": "Bearer " + p.token, "Origin": "http://localhost.evil.example"}, http.StatusForbidden, ""},
		{"local page", map[string]string{"Authorization": "Bearer " + p.token, "Origin": "http://localhost:5173"}, http.StatusOK, ""},
		{"local page over IPv6", map[string]string{"Authorization": "Bearer " + p.token, "Origin": "https://[::1]"}, http.StatusOK, ""},
		{"rebound host", map[string]string{"Authorization": "Bearer " + p.token, "Host": "evil.example"}, http.StatusForbidden, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, p.url, strings.NewReader(initializeBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.headers {
				if k == "Host" {
					req.Host = v
				}
				req.Header.Set(k, v)
			}
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %s, want %d", resp.Status, tt.want)
			}
			if tt.challenge != "" {
				// A refusal says what to do, and where the token is.
				for _, want := range []string{`Send the header "Authorization: Bearer <token>"`, "does not do OAuth", p.tokenFile,
					"claude mcp add --transport http tmux-mcp " + p.url + ` --header "Authorization: Bearer $(cat ` + p.tokenFile + `)"`} {
					if !strings.Contains(string(body), want) {
						t.Errorf("body lacks %q:\n%s", want, body)
					}
				}
				if strings.Contains(string(body), p.token) {
					t.Errorf("the body holds the token:\n%s", body)
				}
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tt.challenge {
				t.Errorf("WWW-Authenticate %q, want %q", got, tt.challenge)
			}
			if tt.want == http.StatusOK && resp.Header.Get("Mcp-Session-Id") == "" {
				t.Errorf("no Mcp-Session-Id; want a session")
			}
		})
	}
	if err := p.stop(t); err != nil {
		t.Errorf("exit after SIGTERM: %v\nstderr:\n%s", err, p.stderr)
	}
	if strings.Contains(p.stderr.String(), p.token) {
		t.Errorf("the token is in the log:\n%s", p.stderr)
	}
	if _, err := os.Stat(p.tokenFile); !os.IsNotExist(err) {
		t.Errorf("token file after exit: %v, want it removed", err)
	}
}

// TestHTTPGivenToken: a token from --http-token-file or the environment
// is the one required, and no file is generated.
func TestHTTPGivenToken(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("a-token-from-a-file-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startHTTP(t, tm, "--http-token-file", file)
	if p.token != "a-token-from-a-file-0123456789" {
		t.Fatalf("listening line names token file %q holding %q; want %s", p.tokenFile, p.token, file)
	}
	if resp, _ := p.post(t, nil, initializeBody, p.auth()); resp.StatusCode != http.StatusOK {
		t.Errorf("with the file's token: %s, want 200", resp.Status)
	}
	resp, body := p.post(t, nil, initializeBody, map[string]string{"Authorization": "Bearer a-token-from-a-file"})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "The token is in "+file+" (--http-token-file).") {
		t.Errorf("with a prefix of the token: %s\n%s\nwant 403 naming %s", resp.Status, body, file)
	}
	if entries, _ := os.ReadDir(filepath.Join(p.runtime, "tmux-mcp")); len(entries) != 0 {
		t.Errorf("files generated beside a given token: %v", entries)
	}
}

// TestHTTPNoOAuth: tmux-mcp does no OAuth, so the paths an MCP client
// looks for its metadata at, and registers or gets tokens at, answer 404
// without a token as with one, and name no challenge: a client has
// nothing to discover, and its user is told to send the token.
func TestHTTPNoOAuth(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := startHTTP(t, tm)
	base := strings.TrimSuffix(p.url, "/mcp")
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/mcp",
		"/.well-known/openid-configuration", "/mcp/.well-known/oauth-protected-resource", "/register", "/authorize", "/token"} {
		for _, headers := range []map[string]string{nil, p.auth()} {
			method := http.MethodGet
			if path == "/register" || path == "/token" {
				method = http.MethodPost
			}
			req, _ := http.NewRequest(method, base+path, strings.NewReader("{}"))
			for k, v := range headers {
				req.Header.Set(k, v)
			}
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || resp.Header.Get("WWW-Authenticate") != "" ||
				!strings.Contains(string(body), "does not do OAuth") {
				t.Errorf("%s %s (token: %t): %s, WWW-Authenticate %q, body %q; want 404 without a challenge, saying tmux-mcp does not do OAuth",
					method, path, headers != nil, resp.Status, resp.Header.Get("WWW-Authenticate"), body)
			}
		}
	}
}

// TestHTTPSettingsRefused: what would let others in, or contradicts
// itself, stops tmux-mcp before it starts anything.
func TestHTTPSettingsRefused(t *testing.T) {
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose")
	if err := os.WriteFile(loose, []byte("0123456789abcdef0123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"remote without auth", []string{"--http", "0.0.0.0:0", "--http-allow-remote", "--http-no-auth"}, nil, "refuses --http-no-auth"},
		{"no auth and a token", []string{"--http", "127.0.0.1:0", "--http-no-auth"}, map[string]string{"TMUX_MCP_HTTP_TOKEN": "0123456789abcdef0123"}, "contradict"},
		{"two tokens", []string{"--http", "127.0.0.1:0", "--http-token-file", short}, map[string]string{"TMUX_MCP_HTTP_TOKEN": "0123456789abcdef0123"}, "not both"},
		{"short env token", []string{"--http", "127.0.0.1:0"}, map[string]string{"TMUX_MCP_HTTP_TOKEN": "abc"}, "at least 16"},
		{"short file token", []string{"--http", "127.0.0.1:0", "--http-token-file", short}, nil, "at least 16"},
		{"token file others read", []string{"--http", "127.0.0.1:0", "--http-token-file", loose}, nil, "chmod 600"},
		{"missing token file", []string{"--http", "127.0.0.1:0", "--http-token-file", filepath.Join(dir, "none")}, nil, "no such file"},
		{"address and socket", []string{"--http", "127.0.0.1:0", "--http-socket", filepath.Join(dir, "s")}, nil, "not both"},
		{"bad origin", []string{"--http", "127.0.0.1:0", "--http-origins", "http://x:99999"}, nil, "http-origins"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			code := run(context.Background(), append([]string{"serve"}, tt.args...),
				env{stdout: io.Discard, stderr: &errb, getenv: func(k string) string { return tt.env[k] }})
			if code != exitUsage || !strings.Contains(errb.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errb.String(), exitUsage, tt.want)
			}
		})
	}
}

// TestHTTPUnixSocket: --http-socket listens on a socket only its owner
// may use (0600), and serves MCP over it with the token.
func TestHTTPUnixSocket(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	sock := filepath.Join(t.TempDir(), "mcp.sock")
	p := startHTTP(t, tm, "--http-socket", sock)
	fi, err := os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	if resp, _ := p.post(t, hc, initializeBody, nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("no token over the socket: %s, want 400", resp.Status)
	}
	c := p.client(t, hc)
	if got := sessionNames(t, callTool(t, c, "list_sessions", nil)); !contains(got, "main") {
		t.Errorf("list_sessions over the socket = %v, want main", got)
	}
	c.Close()
	if err := p.stop(t); err != nil {
		t.Errorf("exit: %v\nstderr:\n%s", err, p.stderr)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("socket after exit: %v, want it removed", err)
	}
}
