package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// rpcCaller is one caller of the binary's streamable HTTP endpoint,
// speaking JSON-RPC itself: a client of protocol 2025-11-25 in a session
// of its own, or a client of 2026-07-28 (no session) that declares the
// tasks extension.
type rpcCaller struct {
	t       *testing.T
	p       *httpProc
	modern  bool
	session string
	id      int
}

// legacyCaller opens a session of protocol 2025-11-25.
func legacyCaller(t *testing.T, p *httpProc) *rpcCaller {
	t.Helper()
	c := &rpcCaller{t: t, p: p}
	resp, body := p.Post(t, nil, initializeBody, p.Auth())
	c.session = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || c.session == "" {
		t.Fatalf("initialize: %d, session %q: %s", resp.StatusCode, c.session, body)
	}
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "notifications/initialized", "")
	return c
}

// modernCaller is a client of protocol 2026-07-28 with the tasks
// extension.
func modernCaller(t *testing.T, p *httpProc) *rpcCaller {
	return &rpcCaller{t: t, p: p, modern: true}
}

var modernMeta = map[string]any{
	"io.modelcontextprotocol/protocolVersion": "2026-07-28",
	"io.modelcontextprotocol/clientInfo":      map[string]any{"name": "owner-test", "version": "0"},
	"io.modelcontextprotocol/clientCapabilities": map[string]any{
		"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
}

// body frames a request of method with params, and returns it with its
// Mcp-Name (SEP-2243).
func (c *rpcCaller) body(method string, params map[string]any) (string, string) {
	c.id++
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	if c.modern {
		p["_meta"] = modernMeta
	}
	var name string
	switch {
	case p["name"] != nil:
		name = fmt.Sprint(p["name"])
	case p["taskId"] != nil:
		name = fmt.Sprint(p["taskId"])
	case p["uri"] != nil:
		name = fmt.Sprint(p["uri"])
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": p})
	return string(b), name
}

func (c *rpcCaller) headers(method, name string) map[string]string {
	h := c.p.Auth()
	if c.modern {
		h["Mcp-Protocol-Version"] = "2026-07-28"
		h["Mcp-Method"] = method
		if name != "" {
			h["Mcp-Name"] = name
		}
	} else {
		h["Mcp-Protocol-Version"] = "2025-11-25"
		h["Mcp-Session-Id"] = c.session
	}
	return h
}

// post sends a frame and returns the response's body.
func (c *rpcCaller) post(frame, method, name string) (*http.Response, string) {
	c.t.Helper()
	return c.p.Post(c.t, &http.Client{Timeout: 30 * time.Second}, frame, c.headers(method, name))
}

// request sends a request and returns the response to it: its result or
// its error.
func (c *rpcCaller) request(method string, params map[string]any) map[string]any {
	c.t.Helper()
	frame, name := c.body(method, params)
	resp, body := c.post(frame, method, name)
	msgs := []string{body}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msgs = nil
		for _, line := range strings.Split(body, "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				msgs = append(msgs, data)
			}
		}
	}
	for _, m := range msgs {
		var msg map[string]any
		if json.Unmarshal([]byte(m), &msg) == nil && msg["id"] == float64(c.id) {
			return msg
		}
	}
	c.t.Fatalf("%s: %d, no response to request %d in %q", method, resp.StatusCode, c.id, body)
	return nil
}

// result is request's result, failing the test on an error.
func (c *rpcCaller) result(method string, params map[string]any) map[string]any {
	c.t.Helper()
	msg := c.request(method, params)
	r, ok := msg["result"].(map[string]any)
	if !ok {
		c.t.Fatalf("%s %v: got %v, want a result", method, params, msg)
	}
	return r
}

// tool calls a tool and returns its structured content, or its error
// class (error_type) for a tool error.
func (c *rpcCaller) tool(name string, args map[string]any) (map[string]any, string) {
	c.t.Helper()
	r := c.result("tools/call", map[string]any{"name": name, "arguments": args})
	if r["isError"] == true {
		meta, _ := r["_meta"].(map[string]any)
		return nil, fmt.Sprint(meta["error_type"])
	}
	sc, _ := r["structuredContent"].(map[string]any)
	return sc, ""
}

// listedJobs is list_jobs' job IDs, with the task status of each.
func (c *rpcCaller) listedJobs() map[string]string {
	c.t.Helper()
	sc, class := c.tool("list_jobs", map[string]any{})
	if class != "" {
		c.t.Fatalf("list_jobs: %s", class)
	}
	out := map[string]string{}
	list, _ := sc["jobs"].([]any)
	for _, j := range list {
		m, _ := j.(map[string]any)
		out[fmt.Sprint(m["job_id"])] = fmt.Sprint(m["task_status"])
	}
	return out
}

// listenAck opens a subscriptions/listen stream for ids and returns the
// task IDs its acknowledgement accepted.
func (c *rpcCaller) listenAck(ids []string) []string {
	c.t.Helper()
	frame, _ := c.body("subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": ids}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.p.URL, strings.NewReader(frame))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range c.headers("subscriptions/listen", "") {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				Notifications struct {
					TaskIDs []string `json:"taskIds"`
				} `json:"notifications"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(data), &m) == nil && m.Method == "notifications/subscriptions/acknowledged" {
			return m.Params.Notifications.TaskIDs
		}
	}
	b, _ := io.ReadAll(resp.Body)
	c.t.Fatalf("subscriptions/listen: %d, no acknowledgement (%v) %s", resp.StatusCode, sc.Err(), b)
	return nil
}

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
	a, b, c := legacyCaller(t, p), legacyCaller(t, p), modernCaller(t, p)

	// A's task (2025-11-25 asks for one: it is one at once) and C's (a
	// call of 2026-07-28 past half a second becomes one).
	r := a.result("tools/call", map[string]any{"name": "run_command", "task": map[string]any{},
		"arguments": map[string]any{"pane_id": paneA, "command": "sleep 600", "timeout": 900}})
	task, _ := r["task"].(map[string]any)
	idA, _ := task["taskId"].(string)
	if idA == "" {
		t.Fatalf("A's run_command with task: got %v, want a task", r)
	}
	r = c.result("tools/call", map[string]any{"name": "run_command",
		"arguments": map[string]any{"pane_id": paneC, "command": "sleep 600", "timeout": 900}})
	idC, _ := r["taskId"].(string)
	if r["resultType"] != "task" || idC == "" {
		t.Fatalf("C's run_command: got %v, want a task", r)
	}

	// What each caller is told of a task (ID) by a method, against what
	// it is told of one that never existed.
	type ask struct {
		name string
		do   func(who *rpcCaller, id string) map[string]any
	}
	method := func(m string, extra map[string]any) func(*rpcCaller, string) map[string]any {
		return func(who *rpcCaller, id string) map[string]any {
			params := map[string]any{"taskId": id}
			for k, v := range extra {
				params[k] = v
			}
			return who.request(m, params)
		}
	}
	tool := func(name string) func(*rpcCaller, string) map[string]any {
		return func(who *rpcCaller, id string) map[string]any {
			r := who.result("tools/call", map[string]any{"name": name, "arguments": map[string]any{"job_id": id}})
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
	resource := func(who *rpcCaller, id string) map[string]any {
		return who.request("resources/read", map[string]any{"uri": "tmux://jobs/" + id})
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
	refused := func(who *rpcCaller, whoName string, asks []ask, id, whose string) {
		t.Helper()
		for _, q := range asks {
			got, want := refusal(q.do(who, id), id), refusal(q.do(who, neverWas), neverWas)
			if want == "found" || got != want {
				t.Errorf("%s's %s of %s's task: got %q, want what an ID that never existed gets: %q", whoName, q.name, whose, got, want)
			}
		}
		if _, ok := who.listedJobs()[id]; ok {
			t.Errorf("%s's list_jobs lists %s's task %s", whoName, whose, id)
		}
		if !who.modern {
			return // subscriptions/listen is of 2026-07-28
		}
		if ids := who.listenAck([]string{id}); len(ids) != 0 {
			t.Errorf("%s's subscriptions/listen for %s's task: acknowledged %v, want none", whoName, whose, ids)
		}
	}
	// B, another session, and C, no session, of A's task; B and A of C's.
	refused(b, "B", legacyAsks, idA, "A")
	if r := b.result("tasks/list", nil); strings.Contains(fmt.Sprint(r), idA) {
		t.Errorf("B's tasks/list lists A's task: %v", r)
	}
	refused(c, "C", modernAsks, idA, "A")
	refused(a, "A", legacyAsks, idC, "C")

	// Each owner still reads its task, and cancels it: its command stops.
	if got := a.result("tasks/get", map[string]any{"taskId": idA}); got["status"] != "working" {
		t.Errorf("A's tasks/get of its task: %v, want working", got)
	}
	if r := a.result("tasks/list", nil); !strings.Contains(fmt.Sprint(r), idA) {
		t.Errorf("A's tasks/list does not list its task: %v", r)
	}
	if got := a.listedJobs()[idA]; got != "working" {
		t.Errorf("A's list_jobs: its task is %q, want working", got)
	}
	if sc, class := a.tool("get_job", map[string]any{"job_id": idA}); class != "" || sc["task_status"] != "working" {
		t.Errorf("A's get_job of its task: %v %s, want working", sc, class)
	}
	if got := c.result("tasks/get", map[string]any{"taskId": idC}); got["status"] != "working" {
		t.Errorf("C's tasks/get of its task: %v, want working", got)
	}
	if sc, class := c.tool("get_job", map[string]any{"job_id": idC}); class != "" || sc["task_status"] != "working" {
		t.Errorf("C's get_job of its task: %v %s, want working", sc, class)
	}
	if ids := c.listenAck([]string{idC}); !slices.Equal(ids, []string{idC}) {
		t.Errorf("C's subscriptions/listen for its task: acknowledged %v, want it", ids)
	}
	// C has no session: every client that holds the token is C, so C's
	// tasks are listed to no one, C included.
	if _, ok := c.listedJobs()[idC]; ok {
		t.Errorf("C's list_jobs lists C's task %s: a sessionless caller's tasks are found by ID alone", idC)
	}
	if got := a.result("tasks/cancel", map[string]any{"taskId": idA}); got["status"] != "cancelled" {
		t.Errorf("A's tasks/cancel of its task: %v, want cancelled", got)
	}
	c.result("tasks/cancel", map[string]any{"taskId": idC})
	for _, pane := range []string{paneA, paneC} {
		awaitNoProcesses(t, tm, pane)
	}

	// A background job is not a task: every caller sees it.
	sc, class := b.tool("run_command", map[string]any{"pane_id": paneA, "command": "echo bg", "background": true})
	job, _ := sc["job_id"].(string)
	if class != "" || job == "" {
		t.Fatalf("B's background run_command: %v %s", sc, class)
	}
	for name, who := range map[string]*rpcCaller{"A": a, "C": c} {
		if _, class := who.tool("get_job", map[string]any{"job_id": job}); class != "" {
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
