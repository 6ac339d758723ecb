package taskext

import (
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
