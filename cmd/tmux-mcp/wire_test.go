package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// wireClient speaks JSON-RPC to a child over its stdin and stdout, line by
// line, and keeps each stdout line as it came: tests read the bytes a
// client reads, not what an SDK decoded from them.
type wireClient struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *syncBuffer
	nextID int
}

// startWire starts cmd (in its own process group, ended at cleanup) and
// reads its stdout.
func startWire(t testing.TB, cmd *exec.Cmd) *wireClient {
	t.Helper()
	r := &wireClient{t: t, cmd: cmd, lines: make(chan string, 64), stderr: &syncBuffer{}, nextID: 1}
	cmd.Stderr = r.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var err error
	if r.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		br := bufio.NewReaderSize(stdout, 1<<20)
		for {
			l, err := br.ReadString('\n')
			if l != "" {
				r.lines <- l
			}
			if err != nil {
				close(r.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		r.stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }() //nolint:errcheck // the exit is not under test here
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // our own process group
			<-done
		}
	})
	return r
}

// send writes one frame.
func (r *wireClient) send(frame string) {
	r.t.Helper()
	if _, err := io.WriteString(r.stdin, frame+"\n"); err != nil {
		r.t.Fatalf("write: %v\nstderr:\n%s", err, r.stderr)
	}
}

// line returns the next stdout line as it came, newline included.
func (r *wireClient) line() string {
	r.t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			r.t.Fatalf("stdout closed\nstderr:\n%s", r.stderr)
		}
		return l
	case <-time.After(15 * time.Second):
		r.t.Fatalf("nothing on stdout for 15s\nstderr:\n%s", r.stderr)
	}
	return ""
}

// frame decodes l as a JSON-RPC frame, failing the test if it is none.
func (r *wireClient) frame(l string) map[string]any {
	r.t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(l), &m); err != nil || m["jsonrpc"] != "2.0" {
		r.t.Fatalf("stdout line is not a JSON-RPC frame: %q", l)
	}
	return m
}

// request sends method with params and returns the response's raw line
// and decoded frame; notifications before it are skipped.
func (r *wireClient) request(method string, params any) (string, map[string]any) {
	r.t.Helper()
	id := r.nextID
	r.nextID++
	p, err := json.Marshal(params)
	if err != nil {
		r.t.Fatal(err)
	}
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, p))
	for {
		l := r.line()
		if m := r.frame(l); m["id"] == float64(id) {
			return l, m
		}
	}
}

// initialize performs the handshake.
func (r *wireClient) initialize() {
	r.t.Helper()
	_, m := r.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "0"}})
	if m["result"] == nil {
		r.t.Fatalf("initialize = %v", m)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// wireResult is a tools/call result as a client decodes it.
type wireResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
	Meta       map[string]any  `json:"_meta"`
	IsError    bool            `json:"isError"`
}

// text joins the result's text blocks.
func (res wireResult) text() string {
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// call calls a tool and returns the response line as it came and the
// decoded result; a JSON-RPC error fails the test.
func (r *wireClient) call(tool string, args map[string]any) (string, wireResult) {
	r.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	l, m := r.request("tools/call", map[string]any{"name": tool, "arguments": args})
	var resp struct {
		Result *wireResult     `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(l), &resp); err != nil || resp.Result == nil {
		r.t.Fatalf("%s: %v (%v)\nstderr:\n%s", tool, m, err, r.stderr)
	}
	return l, *resp.Result
}
