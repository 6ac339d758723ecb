package packaging

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"
)

// codexApp is a `codex app-server` session: Codex's JSON-RPC protocol
// over stdin and stdout (one message a line), which starts the MCP
// servers configured for a thread and lists and calls their tools with
// no login (a turn, which asks a model, is the only thing that needs
// one).
type codexApp struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	nextID int
	stderr *syncBuffer
}

// startCodexApp starts `codex app-server` (bin) in dir with env, and
// initializes it; cleanup closes its stdin and waits for it.
func startCodexApp(t *testing.T, bin, dir string, env []string) *codexApp {
	t.Helper()
	a := &codexApp{t: t, lines: make(chan string, 64), stderr: &syncBuffer{}}
	a.cmd = exec.Command(bin, "app-server")
	a.cmd.Dir, a.cmd.Env, a.cmd.Stderr = dir, env, a.stderr
	var err error
	if a.stdin, err = a.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := a.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(a.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			a.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		a.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- a.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			a.cmd.Process.Kill() //nolint:errcheck // it did not stop on stdin's end
			<-done
		}
	})
	a.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "tmux-mcp-test", "version": "0"}}, nil)
	a.send(map[string]any{"jsonrpc": "2.0", "method": "initialized"})
	return a
}

func (a *codexApp) send(msg any) {
	a.t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		a.t.Fatal(err)
	}
	if _, err := a.stdin.Write(append(b, '\n')); err != nil {
		a.t.Fatalf("codex app-server: %v; stderr:\n%s", err, a.stderr)
	}
}

// call sends a request and decodes its result into result (when not
// nil); notifications that come first are skipped. An error answer fails
// the test.
func (a *codexApp) call(method string, params, result any) {
	a.t.Helper()
	a.nextID++
	id := a.nextID
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	timeout := time.After(90 * time.Second)
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				a.t.Fatalf("codex app-server exited during %s; stderr:\n%s", method, a.stderr)
			}
			var msg struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.ID == nil || *msg.ID != id {
				continue
			}
			if msg.Error != nil {
				a.t.Fatalf("codex app-server %s: %s", method, msg.Error)
			}
			if result != nil {
				if err := json.Unmarshal(msg.Result, result); err != nil {
					a.t.Fatalf("codex app-server %s: %v in %s", method, err, msg.Result)
				}
			}
			return
		case <-timeout:
			a.t.Fatalf("codex app-server: no answer to %s in 90s; stderr:\n%s", method, a.stderr)
		}
	}
}

// codexServer is an MCP server as mcpServerStatus/list shows it.
type codexServer struct {
	Name          string                     `json:"name"`
	RuntimeStatus string                     `json:"runtimeStatus"`
	AuthStatus    string                     `json:"authStatus"`
	Tools         map[string]json.RawMessage `json:"tools"`
	ToolsError    string                     `json:"toolsError"`
}

// thread starts a thread in dir (which starts its MCP servers) and
// returns its ID.
func (a *codexApp) thread(dir string) string {
	a.t.Helper()
	var r struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	a.call("thread/start", map[string]any{"cwd": dir}, &r)
	if r.Thread.ID == "" {
		a.t.Fatal("codex app-server thread/start: no thread ID")
	}
	return r.Thread.ID
}

// server returns MCP server name as the thread sees it once started.
func (a *codexApp) server(thread, name string) codexServer {
	a.t.Helper()
	var r struct {
		Data []codexServer `json:"data"`
	}
	a.call("mcpServerStatus/list", map[string]any{"threadId": thread, "serverName": name}, &r)
	for _, s := range r.Data {
		if s.Name == name {
			return s
		}
	}
	a.t.Fatalf("codex app-server: no MCP server %q in %+v", name, r.Data)
	return codexServer{}
}

// callTool calls an MCP tool through the thread and returns its
// structured content.
func (a *codexApp) callTool(thread, server, tool string, args map[string]any) (structured map[string]any, isError bool) {
	a.t.Helper()
	var r struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent map[string]any    `json:"structuredContent"`
		IsError           *bool             `json:"isError"`
	}
	a.call("mcpServer/tool/call", map[string]any{"threadId": thread, "server": server, "tool": tool, "arguments": args}, &r)
	return r.StructuredContent, r.IsError != nil && *r.IsError
}

func (s codexServer) String() string {
	return fmt.Sprintf("%s: %s, auth %s, %d tools, error %q", s.Name, s.RuntimeStatus, s.AuthStatus, len(s.Tools), s.ToolsError)
}
