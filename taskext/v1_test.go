package taskext

import (
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// v1Meta is the _meta of a 2025-11-25 request (none: the session said
// its version at initialize).
var v1Meta = map[string]any{}

func TestTasksOf20251125(t *testing.T) {
	h, _ := newHarness(t, time.Hour, sleeper(mcp.TaskSupportOptional))
	r := result(t, h.send("tools/call", map[string]any{"name": "sleeper", "arguments": map[string]any{"seconds": 0.3},
		"task": map[string]any{"ttl": 60000}}, v1Meta))
	task, ok := r["task"].(map[string]any)
	if !ok {
		t.Fatalf("tools/call with task: got %v, want a CreateTaskResult with task", r)
	}
	id := task["taskId"].(string)
	if got, want := task["ttl"], 60000.0; got != want {
		t.Errorf("ttl: got %v, want %v", got, want)
	}
	got := result(t, h.send("tasks/get", map[string]any{"taskId": id}, v1Meta))
	if got["taskId"] != id || got["status"] != "working" {
		t.Errorf("tasks/get: got %v, want %s working", got, id)
	}
	// tasks/result waits for the end, then answers the tool's result.
	res := result(t, h.send("tasks/result", map[string]any{"taskId": id}, v1Meta))
	if text := res["content"].([]any)[0].(map[string]any)["text"]; text != "slept" {
		t.Errorf("tasks/result: got %v, want slept", res)
	}
	if rel := res["_meta"].(map[string]any)[mcp.RelatedTaskMetaKey].(map[string]any)["taskId"]; rel != id {
		t.Errorf("related task: got %v, want %s", rel, id)
	}
	list := result(t, h.send("tasks/list", nil, v1Meta))
	if n := len(list["tasks"].([]any)); n != 1 {
		t.Errorf("tasks/list: got %d tasks, want 1", n)
	}
	// Cancelled while it runs: tasks/cancel answers the cancelled task.
	r = result(t, h.send("tools/call", map[string]any{"name": "sleeper", "arguments": map[string]any{"seconds": 60},
		"task": map[string]any{}}, v1Meta))
	id = r["task"].(map[string]any)["taskId"].(string)
	c := result(t, h.send("tasks/cancel", map[string]any{"taskId": id}, v1Meta))
	if c["status"] != "cancelled" {
		t.Errorf("tasks/cancel: got %v, want cancelled", c)
	}
	// Without a task parameter the call answers as always.
	r = result(t, h.send("tools/call", map[string]any{"name": "sleeper", "arguments": map[string]any{"seconds": 0}}, v1Meta))
	if r["content"] == nil {
		t.Errorf("tools/call without task: got %v, want the tool's result", r)
	}
}

// TestTasksBounded: a TTL asked for is cut to the server's maximum, and
// the task's ttl says so; at most MaxTasks are held, the oldest ended
// forgotten first; when all that are held run, a call answers without
// becoming a task.
func TestTasksBounded(t *testing.T) {
	const max = 3
	h, _ := newHarnessOf(t, Options{Budget: time.Hour, MaxTTL: time.Minute, MaxTasks: max}, sleeper(mcp.TaskSupportOptional))
	call := func(seconds float64) map[string]any {
		t.Helper()
		return result(t, h.send("tools/call", map[string]any{"name": "sleeper", "arguments": map[string]any{"seconds": seconds},
			"task": map[string]any{"ttl": 10 * 365 * 24 * 3600 * 1000}}, v1Meta))
	}
	var ended []string
	for range max + 2 {
		task, _ := call(0)["task"].(map[string]any)
		if task["ttl"] != 60000.0 {
			t.Errorf("ttl of a task that asked for ten years: %v, want 60000 (the maximum)", task["ttl"])
		}
		id, _ := task["taskId"].(string)
		result(t, h.send("tasks/result", map[string]any{"taskId": id}, v1Meta))
		ended = append(ended, id)
	}
	listed := func() []string {
		var ids []string
		for _, x := range result(t, h.send("tasks/list", nil, v1Meta))["tasks"].([]any) {
			ids = append(ids, x.(map[string]any)["taskId"].(string))
		}
		return ids
	}
	if got, want := listed(), ended[2:]; !slices.Equal(got, want) {
		t.Errorf("tasks/list after %d ended tasks: %v, want the newest %d: %v", len(ended), got, max, want)
	}
	if msg := h.send("tasks/get", map[string]any{"taskId": ended[0]}, v1Meta); msg["error"] == nil {
		t.Errorf("tasks/get of the oldest ended task: %v, want it forgotten", msg)
	}
	for range max {
		if r := call(60); r["task"] == nil {
			t.Fatalf("a running task in place of an ended one: %v", r)
		}
	}
	if r := call(0.05); r["task"] != nil || r["content"] == nil {
		t.Errorf("a call when %d tasks run: %v, want the tool's result, not a task", max, r)
	}
}
