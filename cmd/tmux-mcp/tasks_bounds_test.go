package main

import (
	"encoding/json"
	"os/exec"
	"slices"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/taskext"
)

// legacyWire is the binary over stdio, initialized as a client of
// protocol 2025-11-25 (which asks for tasks itself).
func legacyWire(t *testing.T, env []string) *wireClient {
	t.Helper()
	cmd := exec.Command(buildBinary(t), "serve")
	cmd.Env = env
	w := startWire(t, cmd)
	if _, m := w.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bounds-test", "version": "0"}}); m["result"] == nil {
		t.Fatalf("initialize = %v", m)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

// result is the result of method, failing the test on an error.
func (r *wireClient) result(method string, params any) map[string]any {
	r.t.Helper()
	_, m := r.request(method, params)
	res, ok := m["result"].(map[string]any)
	if !ok {
		r.t.Fatalf("%s %v: %v, want a result", method, params, m)
	}
	return res
}

// TestTasksBounded: through the binary, a client that asks for tasks kept
// ten years gets them kept a day (the maximum, which their ttl says), and
// no more tasks are held than the bound, running ones counted: of ended
// ones the oldest go first, and once every task held runs a call answers
// without becoming one; a background job is never pushed out.
func TestTasksBounded(t *testing.T) {
	ts := newTaskServer(t)
	w := legacyWire(t, binaryEnv(ts.tm.Socket))
	_, bg := w.call("run_command", map[string]any{"pane_id": ts.pane, "command": "sleep 600", "background": true})
	var started struct {
		JobID string `json:"job_id"`
	}
	if err := json.Unmarshal(bg.Structured, &started); err != nil || started.JobID == "" {
		t.Fatalf("run_command background: %s %v", bg.Structured, err)
	}
	const tenYears = 10 * 365 * 24 * 3600 * 1000
	maxTTL := float64(taskext.DefaultMaxTTL.Milliseconds())
	// newTask asks for a task of get_job with args; the CreateTaskResult,
	// or the plain result of a call that did not become one.
	newTask := func(args map[string]any) (string, map[string]any) {
		t.Helper()
		r := w.result("tools/call", map[string]any{"name": "get_job", "arguments": args, "task": map[string]any{"ttl": tenYears}})
		task, _ := r["task"].(map[string]any)
		if task == nil {
			return "", r
		}
		if task["ttl"] != maxTTL {
			t.Fatalf("ttl of a task that asked for ten years: %v, want %v (the server's maximum)", task["ttl"], maxTTL)
		}
		return task["taskId"].(string), nil
	}
	listed := func() []string {
		t.Helper()
		var ids []string
		for _, x := range w.result("tasks/list", nil)["tasks"].([]any) {
			ids = append(ids, x.(map[string]any)["taskId"].(string))
		}
		return ids
	}
	// The first task waits for the background job; the others read or
	// wait for that task's job, which costs tmux nothing (a pane read
	// each would meet the pane's rate limit).
	first, plain := newTask(map[string]any{"job_id": started.JobID, "timeout": 600})
	if first == "" {
		t.Fatalf("get_job of the background job: answered %v, want a task", plain)
	}

	// More ended tasks than are held: the oldest go.
	const extra = 20
	var ended []string
	for range jobs.MaxCalls + extra {
		id, plain := newTask(map[string]any{"job_id": first})
		if id == "" {
			t.Fatalf("task %d: answered %v, want a task", len(ended), plain)
		}
		w.result("tasks/result", map[string]any{"taskId": id})
		ended = append(ended, id)
	}
	if got, want := listed(), append([]string{first}, ended[extra+1:]...); !slices.Equal(got, want) {
		t.Errorf("tasks/list after %d ended tasks: %d tasks, want the running one and the newest %d ended", len(ended), len(got), len(want)-1)
	}
	for _, id := range []string{ended[0], ended[extra]} {
		if _, m := w.request("tasks/get", map[string]any{"taskId": id}); m["error"] == nil {
			t.Errorf("tasks/get of %s, among the oldest ended: %v, want it forgotten", id, m)
		}
	}
	var list struct {
		Matched int `json:"matched"`
	}
	_, lj := w.call("list_jobs", map[string]any{"limit": 1})
	if err := json.Unmarshal(lj.Structured, &list); err != nil || list.Matched != jobs.MaxCalls+1 {
		t.Errorf("list_jobs matched %d (%v), want the %d tasks held and the background job", list.Matched, err, jobs.MaxCalls)
	}

	// Running tasks take the place of the ended ones, and count: once as
	// many run as are held, a call answers as without tasks.
	running := []string{first}
	for len(running) < jobs.MaxCalls {
		id, plain := newTask(map[string]any{"job_id": first, "timeout": 600})
		if id == "" {
			t.Fatalf("running task %d: answered %v, want a task", len(running), plain)
		}
		running = append(running, id)
	}
	if id, plain := newTask(map[string]any{"job_id": first, "timeout": 0.2}); id != "" || plain["structuredContent"] == nil {
		t.Errorf("get_job as a task while %d tasks run: task %q, result %v; want get_job's own result", jobs.MaxCalls, id, plain)
	}
	w.call("stop_job", map[string]any{"job_id": started.JobID})
	for _, id := range running {
		r := w.result("tasks/result", map[string]any{"taskId": id})
		if sc, _ := r["structuredContent"].(map[string]any); sc["outcome"] != "ended" {
			t.Fatalf("a running task once the job it waited for ended: %v, want outcome ended", r)
		}
	}
	if id, plain := newTask(map[string]any{"job_id": first}); id == "" {
		t.Errorf("a task once the running ones ended: %v, want a task", plain)
	}
	for i, want := range map[int]bool{0: false, 1: true} {
		if _, m := w.request("tasks/get", map[string]any{"taskId": running[i]}); (m["error"] == nil) != want {
			t.Errorf("tasks/get of the task that ran %d-th: %v, want found %v (the oldest ended made room)", i+1, m, want)
		}
	}
}
