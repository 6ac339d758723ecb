package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
)

// window starts a window in session main running cmd (through sh -c) and
// returns its pane ID.
func (e *env) window(cmd string) string {
	e.t.Helper()
	return e.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", cmd)
}

// shell starts an interactive bash with no startup files, the prompt "$ "
// and no history file, and waits for its prompt.
func (e *env) shell() string {
	e.t.Helper()
	p := e.window("env PS1='$ ' HISTFILE=/dev/null bash --noprofile --norc")
	e.waitScreen(p, "prompt", func(s string) bool { return strings.HasSuffix(s, "$") })
	return p
}

// sink starts a pane that copies what is typed into it to a file, byte for
// byte (no echo; cooked mode turns Enter into a newline), and returns the
// pane and the file.
func (e *env) sink() (pane, file string) {
	e.t.Helper()
	file = filepath.Join(e.t.TempDir(), "sink")
	pane = e.window("echo ready; stty -echo; exec cat > " + file)
	e.waitScreen(pane, "sink ready", func(s string) bool { return strings.Contains(s, "ready") })
	return pane, file
}

// screen returns the pane's visible text as tmux shows it now (wrapped
// lines joined), trailing blank lines dropped.
func (e *env) screen(pane string) string {
	e.t.Helper()
	out, err := e.tm.Tmux("capture-pane", "-p", "-J", "-t", pane)
	if err != nil {
		return ""
	}
	// Each row as a person sees it: -J keeps a row's trailing blanks,
	// and how many depends on the tmux version (3.2a keeps more).
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n ")
}

// waitScreen waits until ok accepts the pane's screen.
func (e *env) waitScreen(pane, what string, ok func(string) bool) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := e.screen(pane)
		if ok(s) {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out after 10s waiting for %s in pane %s; the screen:\n%s", what, pane, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitFile waits until the file holds want.
func waitFile(t *testing.T, file, want string) {
	t.Helper()
	var got string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(file)
		if got = string(b); got == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("file %s: got %q, want %q", file, got, want)
}

// commands counts the tmux commands of one name the supervisor ran.
type commands struct {
	mu sync.Mutex
	n  int
}

func countCommands(t *testing.T, sup *supervisor.Supervisor, name string) *commands {
	c := &commands{}
	stop := sup.Subscribe(func(ev supervisor.Event) {
		if ev.Type == supervisor.EventCommand && ev.Command == name {
			c.mu.Lock()
			c.n++
			c.mu.Unlock()
		}
	})
	t.Cleanup(stop)
	return c
}

func (c *commands) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// progressLog collects the progress notifications e's client receives.
type progressLog struct {
	mu  sync.Mutex
	got []map[string]any
	ch  chan struct{}
}

func (e *env) watchProgress() *progressLog {
	p := &progressLog{ch: make(chan struct{}, 100)}
	e.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		p.mu.Lock()
		p.got = append(p.got, n.Params.AdditionalFields)
		p.mu.Unlock()
		p.ch <- struct{}{}
	})
	return p
}

// next waits for the next notification.
func (p *progressLog) next(t *testing.T) {
	t.Helper()
	select {
	case <-p.ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no progress notification within 10s")
	}
}

func (p *progressLog) all() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any{}, p.got...)
}

// async calls a tool in the background with a progress token; the result
// arrives on the channel.
type callResult struct {
	res *mcp.CallToolResult
	err error
}

func (e *env) async(ctx context.Context, name string, args map[string]any) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = name
		req.Params.Arguments = args
		req.Params.Meta = &mcp.Meta{ProgressToken: "tok"}
		res, err := e.c.CallTool(ctx, req)
		ch <- callResult{res, err}
	}()
	return ch
}

// result waits for an async call's result and requires success.
func (e *env) result(ch <-chan callResult, out any) *mcp.CallToolResult {
	e.t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			e.t.Fatalf("call: protocol error %v", r.err)
		}
		if out != nil && !r.res.IsError {
			if err := json.Unmarshal(structuredJSON(e.t, r.res), out); err != nil {
				e.t.Fatalf("decode: %v", err)
			}
		}
		return r.res
	case <-time.After(30 * time.Second):
		e.t.Fatal("no result within 30s")
	}
	return nil
}

// ttyWrite writes s to the pane's terminal, as a program in it would print.
func (e *env) ttyWrite(pane, s string) {
	e.t.Helper()
	tty := e.tmux("display-message", "-p", "-t", pane, "#{pane_tty}")
	f, err := os.OpenFile(tty, os.O_WRONLY, 0)
	if err != nil {
		e.t.Fatalf("open %s: %v", tty, err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		e.t.Fatalf("write %s: %v", tty, err)
	}
}
