package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/journal"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// taskRaw speaks JSON-RPC lines to the binary over stdio, as a client
// of protocol 2026-07-28 that declares the tasks extension.
type taskRaw struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
	id  int
}

func startTaskClient(t *testing.T, bin string, env []string) *taskRaw {
	t.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &syncBuffer{}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &taskRaw{t: t, cmd: cmd, in: in, out: bufio.NewScanner(out)}
	c.out.Buffer(make([]byte, 1<<20), 1<<24)
	t.Cleanup(c.close)
	return c
}

// close ends the binary as a client does: stdin closes, it drains and
// exits.
func (c *taskRaw) close() {
	if c.in == nil {
		return
	}
	c.in.Close()
	c.in = nil
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		c.cmd.Process.Kill() //nolint:errcheck // our own child
		<-done
		c.t.Errorf("tmux-mcp did not exit after stdin closed; stderr:\n%s", c.cmd.Stderr)
	}
}

// call sends a request and returns its result, failing on an error.
func (c *taskRaw) call(method string, params map[string]any) map[string]any {
	c.t.Helper()
	msg := c.request(method, params)
	r, ok := msg["result"].(map[string]any)
	if !ok {
		c.t.Fatalf("%s: got %v, want a result", method, msg)
	}
	return r
}

// request sends a request and returns the response to it (notifications
// are skipped).
func (c *taskRaw) request(method string, params map[string]any) map[string]any {
	c.t.Helper()
	c.id++
	p := map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientInfo":      map[string]any{"name": "restart-test", "version": "0"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{
			"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}}
	for k, v := range params {
		p[k] = v
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": p})
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
	for c.out.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(c.out.Bytes(), &msg); err != nil {
			c.t.Fatalf("%s: %v in %q", method, err, c.out.Text())
		}
		if id, ok := msg["id"].(float64); ok && int(id) == c.id {
			return msg
		}
	}
	c.t.Fatalf("%s: stdout ended; stderr:\n%s", method, c.cmd.Stderr)
	return nil
}

// awaitTask polls tasks/get until the task leaves working.
func (c *taskRaw) awaitTask(id string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := c.call("tasks/get", map[string]any{"taskId": id})
		if s := r["status"]; s != "working" && s != "input_required" {
			return r
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("task %s still %v", id, r["status"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTasksAcrossRestart: a task that ended before tmux-mcp restarted still
// answers tasks/get (from the journal), with its result; one whose call
// was running when tmux-mcp stopped answers failed, saying so; list_jobs
// lists both.
func TestTasksAcrossRestart(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	a, b := bashPane(t, tm), bashPane(t, tm)
	env := binaryEnv(tm.Socket)

	c1 := startTaskClient(t, bin, env)
	run := func(pane, command string) string {
		t.Helper()
		r := c1.call("tools/call", map[string]any{"name": "run_command",
			"arguments": map[string]any{"pane_id": pane, "command": command, "timeout": 600}})
		id, _ := r["taskId"].(string)
		if r["resultType"] != "task" || id == "" {
			t.Fatalf("run_command %q: got %v, want a task", command, r)
		}
		return id
	}
	done := run(a, "sleep 1; echo done; exit 3")
	if r := c1.awaitTask(done); r["status"] != "completed" {
		t.Fatalf("task %s: got %v, want completed", done, r)
	}
	running := run(b, "sleep 600")
	c1.close()

	c2 := startTaskClient(t, bin, env)
	tests := []struct {
		id         string
		wantStatus string
		wantText   string // in the inlined result or error
	}{
		{done, "completed", `"exit_status":3`},
		{running, "failed", "tmux-mcp stopped while the call ran"},
	}
	for _, tt := range tests {
		got := c2.call("tasks/get", map[string]any{"taskId": tt.id})
		if got["status"] != tt.wantStatus {
			t.Errorf("tasks/get %s after a restart: status %v, want %s (%v)", tt.id, got["status"], tt.wantStatus, got)
		}
		var inlined any = got["result"]
		if tt.wantStatus == "failed" {
			inlined = got["error"]
		}
		if b, _ := json.Marshal(inlined); !strings.Contains(string(b), tt.wantText) {
			t.Errorf("tasks/get %s after a restart: %s, want it to contain %s", tt.id, b, tt.wantText)
		}
	}
	list := c2.call("tools/call", map[string]any{"name": "list_jobs", "arguments": map[string]any{}})
	b2, _ := json.Marshal(list["structuredContent"])
	var lj struct {
		Jobs []struct {
			JobID      string `json:"job_id"`
			State      string `json:"state"`
			Tool       string `json:"tool"`
			TaskStatus string `json:"task_status"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(b2, &lj); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, j := range lj.Jobs {
		got[j.JobID] = j.Tool + " " + j.State + " " + j.TaskStatus
	}
	want := map[string]string{done: "run_command exited completed", running: "run_command lost failed"}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("list_jobs row of %s: got %q, want %q", id, got[id], w)
		}
	}
}

// TestLostTaskAcrossRestart: a task whose tmux server is killed under it
// fails and its job is lost; after tmux-mcp restarted, tasks/get still
// answers failed saying the server died, list_jobs lists the job lost,
// and the journal's record of it says its call was lost (the journal's
// record of before dropped that).
func TestLostTaskAcrossRestart(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	pane := bashPane(t, tm)
	env := binaryEnv(tm.Socket)

	c1 := startTaskClient(t, bin, env)
	r := c1.call("tools/call", map[string]any{"name": "run_command",
		"arguments": map[string]any{"pane_id": pane, "command": "sleep 600", "timeout": 900}})
	id, _ := r["taskId"].(string)
	if r["resultType"] != "task" || id == "" {
		t.Fatalf("run_command: got %v, want a task", r)
	}
	pid := tm.PID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if got := c1.awaitTask(id); got["status"] != "failed" {
		t.Fatalf("task %s after kill -9 of its server: %v, want failed", id, got)
	}
	c1.close()

	c2 := startTaskClient(t, bin, env)
	got := c2.call("tasks/get", map[string]any{"taskId": id})
	if b, _ := json.Marshal(got["error"]); got["status"] != "failed" || !strings.Contains(string(b), "died") {
		t.Errorf("tasks/get %s after a restart: %v, want failed, saying the server died", id, got)
	}
	list := c2.call("tools/call", map[string]any{"name": "list_jobs", "arguments": map[string]any{}})
	if b, _ := json.Marshal(list["structuredContent"]); !strings.Contains(string(b), `"job_id":"`+id+`"`) ||
		!strings.Contains(string(b), `"state":"lost"`) {
		t.Errorf("list_jobs after a restart: %s, want %s lost", b, id)
	}
	c2.close()

	j, err := journal.Open(filepath.Join(filepath.Dir(tm.Socket), "journal.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	recs, err := j.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if rec.ID == id {
			if rec.State != jobrecord.Lost || rec.Call == nil || !rec.Call.Lost || rec.Call.Status != jobrecord.Failed {
				t.Errorf("the journal's record of the task: state %s, call %+v; want lost, its call failed and lost", rec.State, rec.Call)
			}
			return
		}
	}
	t.Errorf("the journal has no record of task %s: %+v", id, recs)
}
