package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// refusal is what a caller is told of task id: the error's code and
// message with the ID taken out, or "found" when it is not refused.
func refusal(msg map[string]any, id string) string {
	e, ok := msg["error"].(map[string]any)
	if !ok {
		return "found"
	}
	return fmt.Sprintf("%v %s", e["code"], strings.ReplaceAll(fmt.Sprint(e["message"]), id, "ID"))
}

// neverWas is an ID of the task ID's shape that no task has.
const neverWas = "j0123456789abcdef0123456789abcdef"

// TestTasksBelongToTheirCaller: over HTTP, a task is its caller's. Two
// sessions of 2025-11-25 and a client of 2026-07-28 (no session) share
// the server's token; each is told of another's task what it is told of
// an ID that never existed (tasks/list, tasks/get, tasks/result,
// tasks/cancel, tasks/update, subscriptions/listen, list_jobs, get_job,
// stop_job, the job's resource), and the task's own caller still reads
// and cancels it. A background job of run_command stays every caller's.
func TestTasksBelongToTheirCaller(t *testing.T) {
	ts := newTaskServer(t)
	tm, paneA := ts.tm, ts.pane
	paneC := tm.MustTmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", paneA)
	p := startHTTP(t, tm)
	a, b, c := e2etest.LegacyCaller(t, p), e2etest.LegacyCaller(t, p), e2etest.ModernCaller(t, p)

	// A's task (2025-11-25 asks for one: it is one at once) and C's (a
	// call of 2026-07-28 past half a second becomes one).
	r := a.Result("tools/call", map[string]any{"name": "run_command", "task": map[string]any{},
		"arguments": map[string]any{"pane_id": paneA, "command": "sleep 600", "timeout": 900}})
	task, _ := r["task"].(map[string]any)
	idA, _ := task["taskId"].(string)
	if idA == "" {
		t.Fatalf("A's run_command with task: got %v, want a task", r)
	}
	r = c.Result("tools/call", map[string]any{"name": "run_command",
		"arguments": map[string]any{"pane_id": paneC, "command": "sleep 600", "timeout": 900}})
	idC, _ := r["taskId"].(string)
	if r["resultType"] != "task" || idC == "" {
		t.Fatalf("C's run_command: got %v, want a task", r)
	}

	// What each caller is told of a task (ID) by a method, against what
	// it is told of one that never existed.
	type ask struct {
		name string
		do   func(who *e2etest.RPCCaller, id string) map[string]any
	}
	method := func(m string, extra map[string]any) func(*e2etest.RPCCaller, string) map[string]any {
		return func(who *e2etest.RPCCaller, id string) map[string]any {
			params := map[string]any{"taskId": id}
			for k, v := range extra {
				params[k] = v
			}
			return who.Request(m, params)
		}
	}
	tool := func(name string) func(*e2etest.RPCCaller, string) map[string]any {
		return func(who *e2etest.RPCCaller, id string) map[string]any {
			r := who.Result("tools/call", map[string]any{"name": name, "arguments": map[string]any{"job_id": id}})
			if r["isError"] != true {
				return map[string]any{"found": r}
			}
			meta, _ := r["_meta"].(map[string]any)
			text := ""
			if content, _ := r["content"].([]any); len(content) > 0 {
				text = fmt.Sprint(content[0].(map[string]any)["text"])
			}
			return map[string]any{"error": map[string]any{"code": meta["error_type"], "message": text}}
		}
	}
	resource := func(who *e2etest.RPCCaller, id string) map[string]any {
		return who.Request("resources/read", map[string]any{"uri": "tmux://jobs/" + id})
	}
	// Reads first, then what acts on the task; tasks/result last (of a
	// task that runs, it waits for the end).
	legacyAsks := []ask{
		{"tasks/get", method("tasks/get", nil)},
		{"get_job", tool("get_job")},
		{"resources/read", resource},
		{"tasks/cancel", method("tasks/cancel", nil)},
		{"stop_job", tool("stop_job")},
		{"tasks/result", method("tasks/result", nil)},
	}
	modernAsks := []ask{
		{"tasks/get", method("tasks/get", nil)},
		{"get_job", tool("get_job")},
		{"tasks/update", method("tasks/update", map[string]any{"inputResponses": map[string]any{}})},
		{"tasks/cancel", method("tasks/cancel", nil)},
		{"stop_job", tool("stop_job")},
	}
	refused := func(who *e2etest.RPCCaller, whoName string, asks []ask, id, whose string) {
		t.Helper()
		for _, q := range asks {
			got, want := refusal(q.do(who, id), id), refusal(q.do(who, neverWas), neverWas)
			if want == "found" || got != want {
				t.Errorf("%s's %s of %s's task: got %q, want what an ID that never existed gets: %q", whoName, q.name, whose, got, want)
			}
		}
		if _, ok := who.ListedJobs()[id]; ok {
			t.Errorf("%s's list_jobs lists %s's task %s", whoName, whose, id)
		}
		if !who.Modern() {
			return // subscriptions/listen is of 2026-07-28
		}
		if ids := who.ListenAck([]string{id}); len(ids) != 0 {
			t.Errorf("%s's subscriptions/listen for %s's task: acknowledged %v, want none", whoName, whose, ids)
		}
	}
	// B, another session, and C, no session, of A's task; B and A of C's.
	refused(b, "B", legacyAsks, idA, "A")
	if r := b.Result("tasks/list", nil); strings.Contains(fmt.Sprint(r), idA) {
		t.Errorf("B's tasks/list lists A's task: %v", r)
	}
	refused(c, "C", modernAsks, idA, "A")
	refused(a, "A", legacyAsks, idC, "C")

	// Each owner still reads its task, and cancels it: its command stops.
	if got := a.Result("tasks/get", map[string]any{"taskId": idA}); got["status"] != "working" {
		t.Errorf("A's tasks/get of its task: %v, want working", got)
	}
	if r := a.Result("tasks/list", nil); !strings.Contains(fmt.Sprint(r), idA) {
		t.Errorf("A's tasks/list does not list its task: %v", r)
	}
	if got := a.ListedJobs()[idA]; got != "working" {
		t.Errorf("A's list_jobs: its task is %q, want working", got)
	}
	if sc, class := a.Tool("get_job", map[string]any{"job_id": idA}); class != "" || sc["task_status"] != "working" {
		t.Errorf("A's get_job of its task: %v %s, want working", sc, class)
	}
	if got := c.Result("tasks/get", map[string]any{"taskId": idC}); got["status"] != "working" {
		t.Errorf("C's tasks/get of its task: %v, want working", got)
	}
	if sc, class := c.Tool("get_job", map[string]any{"job_id": idC}); class != "" || sc["task_status"] != "working" {
		t.Errorf("C's get_job of its task: %v %s, want working", sc, class)
	}
	if ids := c.ListenAck([]string{idC}); !slices.Equal(ids, []string{idC}) {
		t.Errorf("C's subscriptions/listen for its task: acknowledged %v, want it", ids)
	}
	// C has no session: every client that holds the token is C, so C's
	// tasks are listed to no one, C included.
	if _, ok := c.ListedJobs()[idC]; ok {
		t.Errorf("C's list_jobs lists C's task %s: a sessionless caller's tasks are found by ID alone", idC)
	}
	if got := a.Result("tasks/cancel", map[string]any{"taskId": idA}); got["status"] != "cancelled" {
		t.Errorf("A's tasks/cancel of its task: %v, want cancelled", got)
	}
	c.Result("tasks/cancel", map[string]any{"taskId": idC})
	for _, pane := range []string{paneA, paneC} {
		awaitNoProcesses(t, tm, pane)
	}

	// A background job is not a task: every caller sees it.
	sc, class := b.Tool("run_command", map[string]any{"pane_id": paneA, "command": "echo bg", "background": true})
	job, _ := sc["job_id"].(string)
	if class != "" || job == "" {
		t.Fatalf("B's background run_command: %v %s", sc, class)
	}
	for name, who := range map[string]*e2etest.RPCCaller{"A": a, "C": c} {
		if _, class := who.Tool("get_job", map[string]any{"job_id": job}); class != "" {
			t.Errorf("%s's get_job of B's background job: %s, want it", name, class)
		}
	}
}

// awaitNoProcesses waits until pane's shell runs nothing.
func awaitNoProcesses(t *testing.T, tm *tmuxtest.Server, pane string) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the cancelled task's command to stop in "+pane, func() bool {
		procs, err := jobs.PaneProcesses(context.Background(), pid)
		return err == nil && len(procs) == 0
	})
}
