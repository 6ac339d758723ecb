package view_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"github.com/tmux-mcp/tmux-mcp/view/browsertest"
)

// viewServer is a tmux server of 3 sessions and 12 panes, as the issue
// pictures it, and tmux-mcp serving the view of it over HTTP. The first
// pane of "logs" copies a FIFO to the terminal, so that a test knows when
// tmux received a line.
type viewServer struct {
	tm   *tmuxtest.Server
	p    *e2etest.HTTP
	base string // http://127.0.0.1:PORT
	fifo string
	bctx context.Context // the browser's tab, when one runs
}

func startViewServer(t *testing.T, args ...string) *viewServer {
	t.Helper()
	tm := tmuxtest.New(t)
	v := &viewServer{tm: tm, fifo: filepath.Join(tm.Dir, "fifo")}
	if err := syscall.Mkfifo(v.fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"build", "agents", "logs"} {
		args := []string{"new-session", "-d", "-s", name, "-x", "120", "-y", "32"}
		if name == "logs" {
			args = append(args, "exec sh -c 'while :; do cat "+v.fifo+"; done'")
		}
		tm.MustTmux(args...)
		for range 3 {
			tm.MustTmux("split-window", "-t", name)
			tm.MustTmux("select-layout", "-t", name, "tiled")
		}
	}
	v.p = e2etest.StartHTTP(t, tm, append([]string{"--view", "--log-level", "debug"}, args...)...)
	v.base = strings.TrimSuffix(v.p.URL, "/mcp")
	return v
}

// say writes line to the FIFO pane and returns when it was written (in
// Unix milliseconds): the moment tmux gets it to print.
func (v *viewServer) say(t *testing.T, line string) float64 {
	t.Helper()
	// Non-blocking: without a reader (the pane gone, or restored without
	// its command) the open fails rather than waits.
	var f *os.File
	var err error
	tmuxtest.WaitFor(t, 5*time.Second, "the FIFO pane to read", func() bool {
		f, err = os.OpenFile(v.fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		return err == nil
	})
	defer f.Close()
	at := float64(time.Now().UnixMicro()) / 1000
	if _, err := io.WriteString(f, line+"\n"); err != nil {
		t.Fatal(err)
	}
	return at
}

// eval runs expr in the page and returns its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitPage waits until expr is true in the page; it asks again across
// navigations (whose contexts end mid-question).
func waitPage(t *testing.T, ctx context.Context, timeout time.Duration, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		var ok bool
		if ok, err = chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(time.Until(deadline)),
			chromedp.WithPollingInterval(10*time.Millisecond))); err == nil && ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	href, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " panes " + document.querySelectorAll('.pane').length + " drawn " + `+paneCount+` + " " + JSON.stringify(window.tmuxView && tmuxView.state) + "\n" + document.body.innerText.slice(0, 3000)`))
	t.Fatalf("page: %s: %v\nthe page: %s", what, err, href)
}

// paneCount is the page's count of panes with a drawn screen.
const paneCount = `[...document.querySelectorAll('.pane')].filter(p => p.querySelector('pre .row')).length`

// TestViewInBrowser drives the page in headless chromium through the
// built binary: sign-in, the 12 panes live, output reaching the screen,
// a new pane appearing, the server killed shown down and then restored;
// the token and the Origin checks; nothing of the panes in the log.
func TestViewInBrowser(t *testing.T) {
	v := startViewServer(t)
	ctx := browsertest.New(t, 1500, 1100)
	v.bctx = ctx

	// Without a credential the page sends the browser to the sign-in.
	if err := chromedp.Do(ctx, chromedp.Navigate(v.base+"/view/")); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, 10*time.Second, "at the sign-in without a credential", `location.pathname === "/view/login"`)
	if err := chromedp.Do(ctx, chromedp.Navigate(v.base+"/view/login#token="+url.QueryEscape(v.p.Token))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, 10*time.Second, "signed in", `location.pathname === "/view/" && !!window.tmuxView`)
	if got := eval[string](t, ctx, `location.hash`); got != "" {
		t.Errorf("the token stayed in the address bar: %q", got)
	}
	waitPage(t, ctx, 10*time.Second, "12 panes drawn", paneCount+` === 12`)
	if got := eval[string](t, ctx, `document.getElementById("conn").textContent`); got != "live" {
		t.Errorf("connection shows %q, want live", got)
	}
	key := v.tm.Socket
	if got := eval[string](t, ctx, `document.querySelector('.server .state').textContent`); got != "up" {
		t.Errorf("server state shows %q, want up", got)
	}

	t.Run("output reaches the screen", func(t *testing.T) {
		// A mark is in the DOM when the observer sees it, on screen after
		// the next frame is painted (the second animation frame from then).
		// textContent, not innerText: no layout of the page in the way.
		eval[bool](t, ctx, `window.marks = {}; window.inDOM = {}; new MutationObserver(() => {
			const text = document.getElementById("servers").textContent;
			for (const m of text.matchAll(/MARK-(\d+)-END/g)) {
				if (!(m[1] in marks)) { marks[m[1]] = -1; inDOM[m[1]] = Date.now(); requestAnimationFrame(() => requestAnimationFrame(() => { marks[m[1]] = Date.now(); })); }
			}
		}).observe(document.getElementById("servers"), {subtree: true, childList: true, characterData: true}); true`)
		var lat, dom []float64
		for i := range 20 {
			at := v.say(t, fmt.Sprintf("MARK-%d-END", i))
			waitPage(t, ctx, 5*time.Second, "mark on screen", fmt.Sprintf(`marks[%d] > 0`, i))
			shown := eval[float64](t, ctx, fmt.Sprintf(`marks[%d]`, i))
			lat = append(lat, shown-at)
			dom = append(dom, eval[float64](t, ctx, fmt.Sprintf(`inDOM[%d]`, i))-at)
			// Lines apart by more than a frame interval (a pane prints
			// again and again at most 10 frames a second: a line within
			// 100 ms of the last frame waits for the next).
			time.Sleep(150 * time.Millisecond)
		}
		slices.Sort(lat)
		slices.Sort(dom)
		t.Logf("tmux output to the page's DOM: p50 %.0f ms, p95 %.0f ms", dom[len(dom)/2], dom[len(dom)*95/100])
		t.Logf("tmux output to pixels: p50 %.0f ms, p95 %.0f ms, max %.0f ms (%d lines)", lat[len(lat)/2], lat[len(lat)*95/100], lat[len(lat)-1], len(lat))
	})

	t.Run("the screen is tmux's after scrolling", func(t *testing.T) {
		// Bursts of lines scroll the pane between frames: the page moves
		// its rows and gets only the new ones, and must end where tmux is.
		var fill strings.Builder
		for i := range 40 {
			fmt.Fprintf(&fill, "fill %d\n", i)
		}
		v.say(t, fill.String()+"FILLED")
		waitPage(t, ctx, 5*time.Second, "the pane full", `document.body.innerText.includes("FILLED")`)
		for burst := range 12 {
			var b strings.Builder
			for i := range 3 {
				fmt.Fprintf(&b, "\x1b[3%dmburst %d line %d\x1b[0m of a scrolling pane\n", 1+i%6, burst, i)
			}
			v.say(t, strings.TrimSuffix(b.String(), "\n"))
			// A few bursts a frame (10 a second), fewer lines than the
			// pane's rows: each frame is a scroll of the last.
			time.Sleep(40 * time.Millisecond)
		}
		v.say(t, "SCROLL-DONE")
		// What the page must show is tmux's screen once the pane has
		// printed the last line (the FIFO is written; the pane's cat
		// and tmux print it when they get the CPU): after that the
		// pane prints nothing more.
		pane := strings.TrimSpace(v.tm.MustTmux("list-panes", "-t", "logs", "-F", "#{pane_id}", "-f", "#{==:#{pane_index},0}"))
		var want string
		tmuxtest.WaitFor(t, 5*time.Second, "tmux to print the last line", func() bool {
			want = strings.TrimRight(v.tm.MustTmux("capture-pane", "-p", "-t", pane), "\n ")
			return strings.HasSuffix(want, "\nSCROLL-DONE")
		})
		rows := fmt.Sprintf(`[...document.querySelectorAll('.pane[data-pane=%q] .row')].map(r => r.textContent.replace(/\s+$/, "")).join("\n").replace(/\s+$/, "")`, pane)
		tmuxtest.WaitFor(t, 5*time.Second, "the page's pane to read as tmux's", func() bool {
			return eval[string](t, ctx, rows) == want
		})
		if got := eval[float64](t, ctx, `tmuxView.state.scrolls`); got == 0 {
			t.Errorf("no frame scrolled: the test did not exercise the scroll")
		}
	})

	t.Run("a new pane appears", func(t *testing.T) {
		start := time.Now()
		id := v.tm.MustTmux("split-window", "-t", "build", "-P", "-F", "#{pane_id}")
		waitPage(t, ctx, 5*time.Second, "new pane", fmt.Sprintf(`!!document.querySelector('.pane[data-pane=%q] pre .row')`, id))
		t.Logf("pane %s drawn %.0f ms after split-window returned", id, float64(time.Since(start).Microseconds())/1000)
		waitPage(t, ctx, 5*time.Second, "13 panes", paneCount+` === 13`)
	})

	t.Run("the jobs table", func(t *testing.T) {
		// A background command, one that ends at once with a status, and
		// a task's call: a row each, from the jobs' records, and the
		// command's pane badged while it runs.
		panes := strings.Fields(v.tm.MustTmux("list-panes", "-t", "agents", "-F", "#{pane_id}"))
		c := v.p.Client(t, nil)
		background := func(pane, command string) string {
			t.Helper()
			var started struct {
				JobID string `json:"job_id"`
			}
			res := e2etest.CallTool(t, c, "run_command", map[string]any{"pane_id": pane, "command": command, "background": true})
			if err := json.Unmarshal(res.RawStructuredContent, &started); err != nil || started.JobID == "" {
				t.Fatalf("run_command background: %s, %v", res.RawStructuredContent, err)
			}
			return started.JobID
		}
		sleeper, exits := background(panes[0], "sleep 300"), background(panes[1], "(exit 3)")
		tc := e2etest.LegacyCaller(t, v.p)
		r := tc.Result("tools/call", map[string]any{"name": "run_command", "task": map[string]any{},
			"arguments": map[string]any{"pane_id": panes[2], "command": "sleep 300", "timeout": 900}})
		task, _ := r["task"].(map[string]any)
		taskID, _ := task["taskId"].(string)
		if taskID == "" {
			t.Fatalf("run_command with task: got %v, want a task", r)
		}
		// row is the jobs table's row of a job, its cells joined by |
		// ("" when there is none).
		row := func(id string) string {
			return fmt.Sprintf(`[...document.querySelectorAll('#jobs tbody tr')].filter(tr => tr.dataset.job === %q)`+
				`.map(tr => [...tr.cells].map(td => td.textContent).join("|")).join("")`, id)
		}
		want := func(id, pane, tool, state, exit string) string {
			return fmt.Sprintf("%s|%s|%s|%s|%s|%s|", id, key, pane, tool, state, exit)
		}
		tests := []struct{ id, want string }{
			{sleeper, want(sleeper, panes[0], "run_command", "running", "")},
			{exits, want(exits, panes[1], "run_command", "exited", "3")},
			// A task's call has no pane of its own: the task's status.
			{taskID, want(taskID, "", "run_command", "working", "")},
		}
		for _, tt := range tests {
			waitPage(t, ctx, 10*time.Second, "the row of "+tt.id, fmt.Sprintf(`(%s).startsWith(%q)`, row(tt.id), tt.want))
			got := eval[string](t, ctx, row(tt.id))
			if rest := strings.TrimPrefix(got, tt.want); rest == got || strings.Trim(rest, "0123456789") != "s" {
				t.Errorf("row of %s: %q, want %q and the seconds elapsed", tt.id, got, tt.want+"Ns")
			}
		}
		badgeOf := fmt.Sprintf(`document.querySelector('.pane[data-pane=%q] .badge.job')`, panes[0])
		badge := "(" + badgeOf + " || {}).textContent"
		if got := eval[string](t, ctx, badge); got != "job "+sleeper {
			t.Errorf("badge of the command's pane: %q, want %q", got, "job "+sleeper)
		}

		e2etest.CallTool(t, c, "stop_job", map[string]any{"job_id": sleeper})
		tc.Result("tasks/cancel", map[string]any{"taskId": taskID})
		waitPage(t, ctx, 10*time.Second, "the command stopped", fmt.Sprintf(`(%s).split("|")[4] === "exited"`, row(sleeper)))
		waitPage(t, ctx, 10*time.Second, "the task cancelled", fmt.Sprintf(`(%s).split("|")[4] === "cancelled"`, row(taskID)))
		waitPage(t, ctx, 10*time.Second, "no badge once the command ended", "!"+badgeOf)
	})

	t.Run("a killed server shows down, then restored", func(t *testing.T) {
		pid := v.tm.PID()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		seen := fmt.Sprintf(`(tmuxView.state.seen[%q] || [])`, key)
		waitPage(t, ctx, 10*time.Second, "shown down", seen+`.some(s => s.startsWith("down") || s.startsWith("restarting"))`)
		waitPage(t, ctx, 20*time.Second, "restored", seen+`.at(-1) === "up" && `+
			`document.querySelector('.server [data-restarts]').dataset.restarts === "1"`)
		// The page shows every pane the restore brought back, once it
		// ended.
		restored := func() int {
			n := 0
			for _, s := range strings.Fields(v.tm.MustTmux("list-panes", "-a", "-F", "#{session_name}")) {
				if s == "build" || s == "agents" || s == "logs" {
					n++
				}
			}
			return n
		}
		tmuxtest.WaitFor(t, 20*time.Second, "the page to show the restored panes", func() bool {
			n := restored()
			return eval[bool](t, ctx, fmt.Sprintf(seen+`.at(-1) === "up" && `+paneCount+` === %d`, n)) && restored() == n
		})
		t.Logf("states shown: %s", eval[string](t, ctx, seen+`.join(" -> ")`))
		if got := eval[string](t, ctx, `document.querySelector('.server .death').textContent`); !strings.Contains(got, "last death") {
			t.Errorf("death line %q", got)
		}
		waitPage(t, ctx, 10*time.Second, "journal timeline", `[...document.querySelectorAll('.timeline li')].some(li => /restor/.test(li.textContent))`)
		v.tm.Track(v.serverPID(t))
	})

	if dir := os.Getenv("TMUX_MCP_SCREENSHOTS"); dir != "" {
		v.dressForScreenshot(t)
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "view.png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("token and origin", func(t *testing.T) {
		hc := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		get := func(path string, h map[string]string) int {
			req, _ := http.NewRequest(http.MethodGet, v.base+path, nil)
			for k, val := range h {
				if k == "Host" {
					req.Host = val
				}
				req.Header.Set(k, val)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		bearer := v.p.Auth()
		// A credential as the page gets one.
		resp, err := hc.Post(v.base+"/view/login", "application/json", strings.NewReader(`{"token": "`+v.p.Token+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		var signedIn struct {
			Credential string `json:"credential"`
		}
		json.NewDecoder(resp.Body).Decode(&signedIn) //nolint:errcheck // checked below
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || signedIn.Credential == "" || len(resp.Cookies()) != 0 {
			t.Fatalf("sign-in: %d, credential %q, cookies %v; want 200, a credential, no cookie", resp.StatusCode, signedIn.Credential, resp.Cookies())
		}
		cred := "Bearer " + signedIn.Credential
		for _, c := range []struct {
			name, path string
			h          map[string]string
			want       int
		}{
			{"page without a credential (it holds no data)", "/view/", nil, http.StatusOK},
			{"asset without a credential", "/view/assets/view.js", nil, http.StatusOK},
			{"sign-in page", "/view/login", nil, http.StatusOK},
			{"stream without a credential", "/view/stream", nil, http.StatusUnauthorized},
			{"stream, wrong token", "/view/stream", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
			{"stream, a cookie", "/view/stream", map[string]string{"Cookie": "tmux_mcp_view=" + signedIn.Credential}, http.StatusUnauthorized},
			{"stream, the credential", "/view/stream", map[string]string{"Authorization": cred}, http.StatusOK},
			{"stream, the credential, the view's origin", "/view/stream", map[string]string{"Authorization": cred, "Origin": v.base}, http.StatusOK},
			{"stream, the credential, another loopback port", "/view/stream", map[string]string{"Authorization": cred, "Origin": "http://127.0.0.1:1"}, http.StatusForbidden},
			{"stream, foreign origin", "/view/stream", map[string]string{"Authorization": bearer["Authorization"], "Origin": "http://evil.example"}, http.StatusForbidden},
			{"page, foreign origin", "/view/", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
			{"stream, a name that resolves here (DNS rebinding)", "/view/stream", map[string]string{"Authorization": cred, "Host": "evil.example:80"}, http.StatusForbidden},
		} {
			if got := get(c.path, c.h); got != c.want {
				t.Errorf("%s: GET %s = %d, want %d", c.name, c.path, got, c.want)
			}
		}
		resp, err = hc.Post(v.base+"/view/login", "application/json", strings.NewReader(`{"token": "wrong"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("sign-in with a wrong token: %d; want 403", resp.StatusCode)
		}
		resp, err = hc.PostForm(v.base+"/view/input", url.Values{"text": {"x"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("input without a credential: %d, want 401", resp.StatusCode)
		}
	})

	t.Run("read-only", func(t *testing.T) {
		status, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`fetch("/view/input", {method: "POST", headers: TmuxViewCredential.headers({"Content-Type": "application/json"}),
			body: JSON.stringify({server: "x", pane: "%0", text: "echo typed", enter: true})}).then(r => r.status)`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusForbidden {
			t.Errorf("input from a read-only page: %v, want 403", status)
		}
	})

	t.Run("the credential is renewed", func(t *testing.T) {
		kept := `JSON.parse(localStorage.getItem("tmux-mcp-view"))`
		before := eval[string](t, ctx, kept+`.c`)
		// As if its end were a minute away (a page renews when a third
		// of its life is left), in a tab shown again after a while.
		eval[bool](t, ctx, `(() => { const v = `+kept+`; v.end = Date.now() + 60000; localStorage.setItem("tmux-mcp-view", JSON.stringify(v));
			document.dispatchEvent(new Event("visibilitychange")); return true; })()`)
		waitPage(t, ctx, 10*time.Second, "the credential renewed", `tmuxView.state.renewals >= 1`)
		after := eval[string](t, ctx, kept+`.c`)
		if left := eval[float64](t, ctx, kept+`.end - Date.now()`); after == before || left < 14*60*1000 {
			t.Errorf("renewed: the same credential %v, %.0f s left; want a new one of 15 min", after == before, left/1000)
		}
		req, _ := http.NewRequest(http.MethodGet, v.base+"/view/stream", nil)
		req.Header.Set("Authorization", "Bearer "+after)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the stream with the renewed credential: %d, want 200", resp.StatusCode)
		}
	})

	t.Run("nothing of the panes in the log", func(t *testing.T) {
		log := v.p.Stderr.String()
		cred := eval[string](t, ctx, `JSON.parse(localStorage.getItem("tmux-mcp-view")).c`)
		for _, secret := range []string{"MARK-", v.p.Token, cred, "echo typed"} {
			if strings.Contains(log, secret) {
				t.Errorf("the log holds %q:\n%s", secret, log)
			}
		}
	})
}

// serverPID is the PID of the restored server (for the cleanup to end).
func (v *viewServer) serverPID(t *testing.T) int {
	t.Helper()
	out := v.tm.MustTmux("display-message", "-p", "#{pid}")
	var pid int
	fmt.Sscan(out, &pid)
	return pid
}

// dressForScreenshot gives the panes something to show in the docs'
// screenshot: colours, a listing, a background job.
func (v *viewServer) dressForScreenshot(t *testing.T) {
	t.Helper()
	panes := strings.Fields(v.tm.MustTmux("list-panes", "-t", "build", "-F", "#{pane_id}"))
	lines := []string{
		`printf '\033[1;32m✔ 214 passed\033[0m  \033[33m2 skipped\033[0m  \033[1;31m✘ 1 failed\033[0m\n'`,
		`ls --color=always -F /usr/lib | head -20`,
		`for i in $(seq 16 51); do printf "\033[48;5;${i}m  "; done; printf '\033[0m\n'; printf '\033[7m reverse \033[0m \033[4munderline\033[0m \033[3mitalic\033[0m\n'`,
	}
	for i, l := range lines {
		v.tm.MustTmux("send-keys", "-t", panes[i], l, "Enter")
	}
	c := v.p.Client(t, nil)
	e2etest.CallTool(t, c, "run_command", map[string]any{"pane_id": panes[3], "command": "sleep 300", "background": true})
	logs := strings.Fields(v.tm.MustTmux("list-panes", "-t", "logs", "-F", "#{pane_id}"))
	v.tm.MustTmux("send-keys", "-t", logs[0], `clear; for i in 0 1 2 3 4 5; do echo "$(date +%T) INFO request 100$i served in ${i}7 ms"; done`, "Enter")
	waitPage(t, v.bctx, 10*time.Second, "the job and the lines shown", `!!document.querySelector(".badge.job") && `+
		`document.querySelector("#jobs tbody tr") && document.body.innerText.includes("request 1005") && document.body.innerText.includes("passed")`)
}

// TestViewInput: with --view-input at the destructive tier the page types
// into the pane chosen (its input line, Enter sends), and the text reaches
// the pane; without the tier, or without --view, tmux-mcp refuses to start.
func TestViewInput(t *testing.T) {
	bin := e2etest.Binary(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "127.0.0.1:0", "--view", "--view-input"}, "needs --safety destructive"},
		{[]string{"--view"}, "--view is served over HTTP"},
		{[]string{"--http", "127.0.0.1:0", "--view-input", "--safety", "destructive"}, "add --view"},
	} {
		out, err := exec.Command(bin, append([]string{"serve"}, c.args...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("tmux-mcp %s: %v, %q; want a refusal saying %q", strings.Join(c.args, " "), err, out, c.want)
		}
	}

	v := startViewServer(t, "--view-input", "--safety", "destructive")
	ctx := browsertest.New(t, 1500, 1100)
	if err := chromedp.Do(ctx, chromedp.Navigate(v.base+"/view/login#token="+url.QueryEscape(v.p.Token))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, 10*time.Second, "12 panes drawn", paneCount+` === 12`)
	panes := strings.Fields(v.tm.MustTmux("list-panes", "-t", "build", "-F", "#{pane_id}"))
	target := panes[2]
	// Choose the pane with a click whose button goes down before a
	// redraw of the page (an overview a second) and up after it, as a
	// slow hand's does, or any click while the machine is loaded.
	box, err := chromedp.Run(ctx, chromedp.Dimensions(chromedp.CSS(fmt.Sprintf(`.pane[data-pane=%q]`, target))))
	if err != nil {
		t.Fatal(err)
	}
	x, y := (box.Content[0]+box.Content[4])/2, (box.Content[1]+box.Content[5])/2
	n := eval[float64](t, ctx, `tmuxView.state.overviews`)
	if err := chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, 10*time.Second, "a redraw", fmt.Sprintf(`tmuxView.state.overviews >= %v`, n+1))
	if err := chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseReleased, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1))); err != nil {
		t.Fatal(err)
	}
	// Type half a line, let the page redraw under it, type the rest,
	// send it.
	input := chromedp.CSS(`[data-session="$0"] form.input input`)
	if err := chromedp.Do(ctx, chromedp.SendKeys(input, "echo TYPED-")); err != nil {
		t.Fatal(err)
	}
	n = eval[float64](t, ctx, `tmuxView.state.overviews`)
	waitPage(t, ctx, 10*time.Second, "two redraws", fmt.Sprintf(`tmuxView.state.overviews >= %v`, n+2))
	if err := chromedp.Do(ctx, chromedp.SendKeys(input, "$((6*7))\n")); err != nil {
		t.Fatal(err)
	}
	// The page answers once tmux has the keys: the input line is
	// emptied then. The line runs in one pane: the chosen one.
	waitPage(t, ctx, 10*time.Second, "the input sent", `document.querySelector('[data-session="$0"] form.input input').value === ""`)
	ran := ""
	tmuxtest.WaitFor(t, 5*time.Second, "the typed line to run in a pane", func() bool {
		for _, p := range panes {
			if strings.Contains(v.tm.MustTmux("capture-pane", "-p", "-t", p), "TYPED-42") {
				ran = p
				return true
			}
		}
		return false
	})
	if ran != target {
		t.Fatalf("the typed line ran in %s, not in %s, the pane clicked", ran, target)
	}
	for _, other := range []string{panes[0], panes[1], panes[3]} {
		if strings.Contains(v.tm.MustTmux("capture-pane", "-p", "-t", other), "TYPED") {
			t.Errorf("pane %s got the typing meant for %s", other, target)
		}
	}
	if strings.Contains(v.p.Stderr.String(), "TYPED") {
		t.Errorf("the keystrokes reached the log:\n%s", v.p.Stderr)
	}
}

// TestViewSignInForm: the sign-in page's form, the way in whenever no
// link was printed (under an MCP client, with --log-file, through a
// pipe): a wrong token typed into the field is refused on the page; the
// right one opens the view with its panes drawn. (A form that the browser
// posts itself goes with "Origin: null" under the page's Referrer-Policy,
// which the Origin check refuses.)
func TestViewSignInForm(t *testing.T) {
	v := startViewServer(t)
	ctx := browsertest.New(t, 1500, 1100)
	if err := chromedp.Do(ctx, chromedp.Navigate(v.base+"/view/")); err != nil {
		t.Fatal(err)
	}
	// Complete: the deferred login.js has run and holds the form's
	// submit (before it, a click posts the form natively, which is
	// refused for its Origin: null).
	waitPage(t, ctx, 10*time.Second, "at the sign-in", `location.pathname === "/view/login" && document.readyState === "complete"`)
	// The field is filled and the form submitted the way its button does
	// (requestSubmit with it: the submit event), from the page's own
	// script: chromedp's node actions failed here under load with "Could
	// not find node with given id", a handle of its own gone stale.
	submit := func(token string) {
		t.Helper()
		q, err := json.Marshal(token)
		if err != nil {
			t.Fatal(err)
		}
		eval[bool](t, ctx, `(function () { var f = document.querySelector("form.login"); f.elements.token.value = `+string(q)+
			`; f.requestSubmit(f.querySelector("button")); return true; })()`)
	}
	submit("not-the-token")
	waitPage(t, ctx, 10*time.Second, "the wrong token refused on the page", `location.pathname === "/view/login" && `+
		`((document.getElementById("msg") || {}).textContent || "").includes("refused")`)
	submit(v.p.Token)
	waitPage(t, ctx, 15*time.Second, "the view open, 12 panes drawn", `location.pathname === "/view/" && `+paneCount+` === 12`)
	if got := eval[string](t, ctx, `location.href`); strings.Contains(got, v.p.Token) {
		t.Errorf("the token is in the address bar: %s", got)
	}
}

// TestViewSignInAgain: when tmux-mcp comes back with another token (a
// generated one is new at each start), the open page's stream is refused
// and the page goes back to the sign-in rather than retrying forever.
func TestViewSignInAgain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	tm := tmuxtest.New(t)
	tm.MustTmux("new-session", "-d", "-s", "one")
	first := e2etest.StartHTTP(t, tm, "--http", addr, "--view")
	ctx := browsertest.New(t, 1200, 800)
	if err := chromedp.Do(ctx, chromedp.Navigate("http://"+addr+"/view/login#token="+url.QueryEscape(first.Token))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, 10*time.Second, "signed in, a pane drawn", `location.pathname === "/view/" && `+paneCount+` === 1`)
	if err := first.Stop(t); err != nil {
		t.Fatalf("tmux-mcp stopped with %v", err)
	}
	second := e2etest.StartHTTP(t, tm, "--http", addr, "--view")
	if second.Token == first.Token {
		t.Fatal("the second start generated the same token")
	}
	waitPage(t, ctx, 15*time.Second, "back at the sign-in", `location.pathname === "/view/login"`)
}
