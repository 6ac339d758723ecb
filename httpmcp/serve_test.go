package httpmcp

import (
	"cmp"
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

func TestCheckListenAddr(t *testing.T) {
	tests := []struct {
		addr    string
		remote  bool
		wantErr bool
	}{
		{"127.0.0.1:8080", false, false},
		{"[::1]:8080", false, false},
		{"localhost:0", false, false},
		{":8080", false, true},
		{"0.0.0.0:8080", false, true},
		{"192.168.1.2:80", false, true},
		{"0.0.0.0:8080", true, false},
		{"nonsense", false, true},
	}
	for _, tt := range tests {
		if err := checkListenAddr(tt.addr, tt.remote); (err != nil) != tt.wantErr {
			t.Errorf("checkListenAddr(%q, %v) = %v, want error %v", tt.addr, tt.remote, err, tt.wantErr)
		}
	}
}

// nopDrainer has no calls in flight.
type nopDrainer struct{}

func (nopDrainer) BeginShutdown()                  {}
func (nopDrainer) Drain(ctx context.Context) error { return nil }

// serveTest serves an empty MCP server with o on a loopback port, a
// token generated under a temporary directory, until the test ends. It
// returns the URL of /mcp and the token.
func serveTest(t *testing.T, o Options) (string, string) {
	t.Helper()
	return serveTestView(t, o, nil)
}

// serveTestView is serveTest with view mounted as the live view (none
// when nil).
func serveTestView(t *testing.T, o Options, view http.Handler) (string, string) {
	t.Helper()
	o.Addr = "127.0.0.1:0"
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if view != nil {
		s.SetView(view)
	}
	runtime := t.TempDir()
	if err := s.Open(func(k string) string { return map[string]string{"XDG_RUNTIME_DIR": runtime}[k] }); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, server.NewMCPServer("test", "0"), nopDrainer{}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		s.Close()
		if _, err := os.Stat(s.tokenFile); !os.IsNotExist(err) {
			t.Errorf("token file after Close: %v, want it removed", err)
		}
	})
	return "http://" + s.ln.Addr().String() + "/mcp", s.token
}

// TestServeRefusals: the checks around mcp-go's handler, in their order:
// a foreign Origin is refused before the token is looked at, the token
// before the body, the body before the session cap.
func TestServeRefusals(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	url, token := serveTest(t, Options{Origins: DefaultOrigins, MaxBody: 1 << 10, MaxSessions: 1})
	bearer := "Bearer " + token
	for _, tt := range []struct {
		name   string
		path   string
		header map[string]string
		body   string
		want   int
		says   string
	}{
		{"evil origin, no token", "", map[string]string{"Origin": "http://evil.example"}, initialize, http.StatusForbidden, "Origin"},
		{"no token, big body", "", nil, strings.Repeat(" ", 2<<10), http.StatusBadRequest, "no bearer token."},
		{"wrong token", "", map[string]string{"Authorization": "Bearer " + strings.Repeat("x", 43)}, initialize, http.StatusForbidden, "wrong bearer token"},
		{"other path", "/.well-known/oauth-protected-resource", nil, "", http.StatusNotFound, "does not do OAuth"},
		{"big body", "", map[string]string{"Authorization": bearer}, strings.Repeat(" ", 2<<10), http.StatusRequestEntityTooLarge, "--http-max-body"},
		{"initialize", "", map[string]string{"Authorization": bearer}, initialize, http.StatusOK, ""},
		{"initialize over the cap", "", map[string]string{"Authorization": bearer}, initialize, http.StatusServiceUnavailable, "--http-max-sessions"},
		{"GET without a session", "", map[string]string{"Authorization": bearer}, "", http.StatusBadRequest, "Mcp-Session-Id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			method := http.MethodPost
			if tt.body == "" {
				method = http.MethodGet
			}
			req, err := http.NewRequest(method, strings.TrimSuffix(url, "/mcp")+cmp.Or(tt.path, "/mcp"), strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want || !strings.Contains(string(body), tt.says) {
				t.Errorf("%s: %s %q; want %d saying %q", tt.name, resp.Status, body, tt.want, tt.says)
			}
		})
	}
}

// TestServePaths: what each path is, as doc.go's third check says: /mcp
// is MCP (the token asked for); with the view mounted /view/ and what is
// under it is the view and /view redirects there; every other path is
// 404 without a token, the OAuth discovery paths among them, and the
// view's paths too when no view is mounted.
func TestServePaths(t *testing.T) {
	view := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "the view at "+r.URL.Path) })
	hc := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, mounted := range []bool{false, true} {
		var h http.Handler
		if mounted {
			h = view
		}
		url, _ := serveTestView(t, Options{Origins: DefaultOrigins}, h)
		base := strings.TrimSuffix(url, "/mcp")
		for _, tt := range []struct {
			path     string
			want     int
			says     string // in the body, or the Location of a redirect
			withView bool   // the want holds with the view mounted; without it the path is 404
		}{
			{"/mcp", http.StatusBadRequest, "no bearer token", false},
			{"/view/", http.StatusOK, "the view at /view/", true},
			{"/view/assets/view.js", http.StatusOK, "the view at /view/assets/view.js", true},
			{"/view", http.StatusMovedPermanently, "/view/", true},
			{"/", http.StatusNotFound, "does not do OAuth", false},
			{"/mcp/x", http.StatusNotFound, "does not do OAuth", false},
			{"/views", http.StatusNotFound, "does not do OAuth", false},
			{"/.well-known/oauth-protected-resource", http.StatusNotFound, "does not do OAuth", false},
			{"/.well-known/oauth-authorization-server", http.StatusNotFound, "does not do OAuth", false},
		} {
			want, says := tt.want, tt.says
			if tt.withView && !mounted {
				want, says = http.StatusNotFound, "does not do OAuth"
			}
			resp, err := hc.Get(base + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got := string(body)
			if resp.StatusCode == http.StatusMovedPermanently {
				got = resp.Header.Get("Location")
			}
			if resp.StatusCode != want || !strings.Contains(got, says) {
				t.Errorf("view mounted %v: GET %s = %s %q; want %d with %q", mounted, tt.path, resp.Status, got, want, says)
			}
		}
	}
}
