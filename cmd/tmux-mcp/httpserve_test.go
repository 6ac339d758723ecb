package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

const initializeBody = e2etest.InitializeBody

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
	if p.Token == "" {
		t.Fatalf("no token_file in the listening line; stderr:\n%s", p.Stderr)
	}
	if want := filepath.Join(p.Runtime, "tmux-mcp"); filepath.Dir(p.TokenFile) != want {
		t.Errorf("token file %s, want it in %s", p.TokenFile, want)
	}
	fi, err := os.Stat(p.TokenFile)
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
		{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("x", len(p.Token))}, http.StatusForbidden,
			`Bearer realm="tmux-mcp", error="invalid_token"`},
		{"token as basic auth", map[string]string{"Authorization": "Basic " + p.Token}, http.StatusBadRequest, noToken},
		{"right token", p.Auth(), http.StatusOK, ""},
		{"lower-case scheme", map[string]string{"Authorization": "bearer " + p.Token}, http.StatusOK, ""},
		{"evil origin", map[string]string{"Authorization": "Bearer " + p.Token, "Origin": "http://evil.example"}, http.StatusForbidden, ""},
		{"evil origin, no token", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden, ""},
		{"null origin", map[string]string{"Authorization": "Bearer " + p.Token, "Origin": "null"}, http.StatusForbidden, ""},
		{"localhost look-alike", map[string]string{"Authorization": "Bearer " + p.Token, "Origin": "http://localhost.evil.example"}, http.StatusForbidden, ""},
		{"local page", map[string]string{"Authorization": "Bearer " + p.Token, "Origin": "http://localhost:5173"}, http.StatusOK, ""},
		{"local page over IPv6", map[string]string{"Authorization": "Bearer " + p.Token, "Origin": "https://[::1]"}, http.StatusOK, ""},
		{"rebound host", map[string]string{"Authorization": "Bearer " + p.Token, "Host": "evil.example"}, http.StatusForbidden, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, p.URL, strings.NewReader(initializeBody))
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
				for _, want := range []string{`Send the header "Authorization: Bearer <token>"`, "does not do OAuth", p.TokenFile,
					"claude mcp add --transport http tmux-mcp " + p.URL + ` --header "Authorization: Bearer $(cat ` + p.TokenFile + `)"`} {
					if !strings.Contains(string(body), want) {
						t.Errorf("body lacks %q:\n%s", want, body)
					}
				}
				if strings.Contains(string(body), p.Token) {
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
	if err := p.Stop(t); err != nil {
		t.Errorf("exit after SIGTERM: %v\nstderr:\n%s", err, p.Stderr)
	}
	if strings.Contains(p.Stderr.String(), p.Token) {
		t.Errorf("the token is in the log:\n%s", p.Stderr)
	}
	if _, err := os.Stat(p.TokenFile); !os.IsNotExist(err) {
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
	if p.Token != "a-token-from-a-file-0123456789" {
		t.Fatalf("listening line names token file %q holding %q; want %s", p.TokenFile, p.Token, file)
	}
	if resp, _ := p.Post(t, nil, initializeBody, p.Auth()); resp.StatusCode != http.StatusOK {
		t.Errorf("with the file's token: %s, want 200", resp.Status)
	}
	resp, body := p.Post(t, nil, initializeBody, map[string]string{"Authorization": "Bearer a-token-from-a-file"})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "The token is in "+file+" (--http-token-file).") {
		t.Errorf("with a prefix of the token: %s\n%s\nwant 403 naming %s", resp.Status, body, file)
	}
	if entries, _ := os.ReadDir(filepath.Join(p.Runtime, "tmux-mcp")); len(entries) != 0 {
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
	base := strings.TrimSuffix(p.URL, "/mcp")
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/mcp",
		"/.well-known/openid-configuration", "/mcp/.well-known/oauth-protected-resource", "/register", "/authorize", "/token"} {
		for _, headers := range []map[string]string{nil, p.Auth()} {
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
	if resp, _ := p.Post(t, hc, initializeBody, nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("no token over the socket: %s, want 400", resp.Status)
	}
	c := p.Client(t, hc)
	if got := sessionNames(t, callTool(t, c, "list_sessions", nil)); !contains(got, "main") {
		t.Errorf("list_sessions over the socket = %v, want main", got)
	}
	c.Close()
	if err := p.Stop(t); err != nil {
		t.Errorf("exit: %v\nstderr:\n%s", err, p.Stderr)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("socket after exit: %v, want it removed", err)
	}
}
