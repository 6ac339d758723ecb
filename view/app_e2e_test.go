package view_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"github.com/tmux-mcp/tmux-mcp/view/browsertest"
)

// appHost is a stand-in MCP Apps host for the test, in the page that
// embeds the app: it loads the ui:// resource's HTML into a sandboxed
// frame, answers ui/initialize, sends the tool's input and result, and
// forwards the app's tools/call to tmux-mcp (through /call, which the test
// serves with a real MCP client of the binary). It records what the app
// sent.
const appHost = `<!doctype html><html><body style="margin:0;background:#0f1115">
<iframe id="app" sandbox="allow-scripts allow-same-origin" style="width:1400px;height:1000px;border:0"></iframe>
<script>
const args = JSON.parse(new URLSearchParams(location.search).get("args") || "{}");
const frame = document.getElementById("app");
window.host = {initialized: false, sizes: [], calls: 0, methods: []};
const call = (name, a) => fetch("/call", {method: "POST", body: JSON.stringify({name, arguments: a})}).then(r => r.json());
const post = m => frame.contentWindow.postMessage(m, "*");
window.addEventListener("message", async ev => {
  if (ev.source !== frame.contentWindow) return;
  const m = ev.data;
  host.methods.push(m.method || "result");
  if (m.method === "ui/initialize") {
    post({jsonrpc: "2.0", id: m.id, result: {protocolVersion: "2026-01-26", hostInfo: {name: "test-host", version: "0"},
      hostCapabilities: {serverTools: {}}, hostContext: {theme: "dark", displayMode: "inline"}}});
  } else if (m.method === "ui/notifications/initialized") {
    host.initialized = true;
    post({jsonrpc: "2.0", method: "ui/notifications/tool-input", params: {arguments: args}});
    post({jsonrpc: "2.0", method: "ui/notifications/tool-result", params: await call("view_session", args)});
  } else if (m.method === "tools/call") {
    host.calls++;
    post({jsonrpc: "2.0", id: m.id, result: await call(m.params.name, m.params.arguments)});
  } else if (m.method === "ui/notifications/size-changed") {
    host.sizes.push(m.params);
  }
});
fetch("/app").then(r => r.text()).then(html => { frame.srcdoc = html; });
</script></body></html>`

// TestViewApp: view_session's MCP App, in chromium under a stand-in host,
// through the built binary: the tool names its ui:// resource, the
// resource is one HTML document, the app draws the session's panes from
// the tool result and keeps them live through tools/call; the tool's text
// is the panes for clients without apps.
func TestViewApp(t *testing.T) {
	v := startViewServer(t)
	c := v.p.Client(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var uri string
	for _, tool := range tools.Tools {
		if tool.Name == "view_session" && tool.Meta != nil {
			ui, _ := tool.Meta.AdditionalFields["ui"].(map[string]any)
			uri, _ = ui["resourceUri"].(string)
			if flat, _ := tool.Meta.AdditionalFields["ui/resourceUri"].(string); flat != uri {
				t.Errorf("_meta[ui/resourceUri] = %q, want %q as in _meta.ui.resourceUri", flat, uri)
			}
		}
	}
	if !strings.HasPrefix(uri, "ui://") {
		t.Fatalf("view_session names no ui:// resource (got %q)", uri)
	}
	var rr mcp.ReadResourceRequest
	rr.Params.URI = uri
	res, err := c.ReadResource(ctx, rr)
	if err != nil {
		t.Fatal(err)
	}
	page, ok := res.Contents[0].(mcp.TextResourceContents)
	if !ok || page.MIMEType != "text/html;profile=mcp-app" || !strings.HasPrefix(page.Text, "<!doctype html>") {
		t.Fatalf("resource %s: %T %q, want an HTML document of text/html;profile=mcp-app", uri, res.Contents[0], page.MIMEType)
	}
	if strings.Contains(page.Text, "src=") || strings.Contains(page.Text, "href=") {
		t.Errorf("the app's HTML loads something: it must be self-contained")
	}

	// Clients without apps read the panes as text.
	v.say(t, "TEXT-FOR-THE-MODEL")
	var text string
	for range 50 {
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.Arguments = "view_session", map[string]any{"session_name": "logs"}
		out, err := c.CallTool(ctx, req)
		if err != nil || out.IsError {
			t.Fatalf("view_session: %v %v", err, out)
		}
		if text = out.Content[0].(mcp.TextContent).Text; strings.Contains(text, "TEXT-FOR-THE-MODEL") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(text, "TEXT-FOR-THE-MODEL") || strings.Contains(text, "\x1b") || strings.Count(text, "── %") != 4 {
		t.Errorf("view_session's text: want the 4 panes of logs as plain text, got:\n%s", text)
	}

	// The cursor as tmux has it: hidden in the pane whose program hid
	// it, shown in the others.
	agents := strings.Fields(v.tm.MustTmux("list-panes", "-t", "agents", "-F", "#{pane_id}"))
	v.tm.MustTmux("send-keys", "-t", agents[0], `printf '\033[?25l'`, "Enter")
	tmuxtest.WaitFor(t, 5*time.Second, "tmux to hide the cursor", func() bool {
		return strings.TrimSpace(v.tm.MustTmux("display-message", "-p", "-t", agents[0], "#{cursor_flag}")) == "0"
	})
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = "view_session", map[string]any{"session_name": "agents"}
	out, err := c.CallTool(ctx, req)
	if err != nil || out.IsError {
		t.Fatalf("view_session: %v %v", err, out)
	}
	var shown struct {
		Sessions []struct {
			Windows []struct {
				Panes []struct {
					ID            string `json:"id"`
					CursorVisible bool   `json:"cursor_visible"`
				} `json:"panes"`
			} `json:"windows"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(e2etest.Structured(t, out), &shown); err != nil || len(shown.Sessions) != 1 {
		t.Fatalf("view_session's structured content: %v, %d sessions", err, len(shown.Sessions))
	}
	for _, w := range shown.Sessions[0].Windows {
		for _, p := range w.Panes {
			if want := p.ID != agents[0]; p.CursorVisible != want {
				t.Errorf("pane %s: cursor_visible %v, want %v (tmux's cursor_flag)", p.ID, p.CursorVisible, want)
			}
		}
	}

	// The host page: same machine, another port (an allowed origin is not
	// needed: the test's handler calls tmux-mcp, not the page).
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, appHost)
		case "/app":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, page.Text)
		case "/call":
			var in struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			}
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var req mcp.CallToolRequest
			req.Params.Name, req.Params.Arguments = in.Name, in.Arguments
			out, err := c.CallTool(r.Context(), req)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			json.NewEncoder(w).Encode(out) //nolint:errcheck // the page went away
		}
	}))
	defer hs.Close()

	bctx := browsertest.New(t, 1500, 1100)
	inApp := func(expr string) string {
		return `(() => { const d = document.getElementById("app").contentDocument; const w = document.getElementById("app").contentWindow; return ` + expr + `; })()`
	}
	for _, c := range []struct {
		name  string
		args  string
		panes int
	}{
		{"one session", `{"session_name":"logs"}`, 4},
		{"every session", `{}`, 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := chromedp.Do(bctx, chromedp.Navigate(hs.URL+"/?args="+url.QueryEscape(c.args))); err != nil {
				t.Fatal(err)
			}
			waitPage(t, bctx, 10*time.Second, "app initialized", `window.host && host.initialized`)
			waitPage(t, bctx, 10*time.Second, "panes drawn", inApp(fmt.Sprintf(
				`d && [...d.querySelectorAll(".pane")].filter(p => p.querySelector(".row")).length === %d`, c.panes)))
			mark := fmt.Sprintf("APP-LIVE-%d-END", c.panes)
			v.say(t, mark)
			waitPage(t, bctx, 10*time.Second, "output shown live", inApp(fmt.Sprintf(`d.body.innerText.includes(%q)`, mark)))
			if got := eval[float64](t, bctx, `host.calls`); got < 1 {
				t.Errorf("the app called no tool through the host")
			}
			if got := eval[bool](t, bctx, inApp(`d.documentElement.classList.contains("dark")`)); !got {
				t.Errorf("the app ignored the host's dark theme")
			}
			if got := eval[float64](t, bctx, `host.sizes.length`); got < 1 {
				t.Errorf("the app never told the host its size")
			}
			if dir := os.Getenv("TMUX_MCP_SCREENSHOTS"); dir != "" && c.panes == 4 {
				shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "app.png"), shot, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
