package agentstub

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The MCP tool replies are proven end to end by cmd/tmux-mcp's
// TestReadmeClientsDriveTmux (each CLI calls run_command and send_keys);
// these check the parts that read what each CLI sends.

func TestFindTool(t *testing.T) {
	claude := []string{"Bash", "mcp__tmux-mcp__run_command", "mcp__tmux-mcp__send_keys", "mcp__tmux-mcp__send_keys_batch"}
	codex := []string{"exec_command", "mcp__tmux_mcp__send_keys", "mcp__tmux_mcp__send_keys_batch"}
	gemini := []string{"run_shell_command", "mcp_tmux-mcp_send_keys", "mcp_tmux-mcp_send_keys_batch"}
	tests := []struct {
		offered    []string
		tool, want string
	}{
		{claude, "send_keys", "mcp__tmux-mcp__send_keys"},
		{claude, "run_command", "mcp__tmux-mcp__run_command"},
		{claude, "Bash", "Bash"},
		{claude, "kill_server", ""},
		{claude, "keys", ""}, // the end of a name, not a name after a server's prefix
		{codex, "send_keys", "mcp__tmux_mcp__send_keys"},
		{codex, "keys", ""},
		{gemini, "send_keys", "mcp_tmux-mcp_send_keys"},
		{gemini, "keys_batch", ""},
	}
	for _, tt := range tests {
		if got := findTool(tt.offered, tt.tool); got != tt.want {
			t.Errorf("findTool(%q, %q) = %q, want %q", tt.offered, tt.tool, got, tt.want)
		}
	}
}

func TestDeferredNames(t *testing.T) {
	text := "You are...\n\n" + deferredMarker + " Their schemas are NOT loaded. Use ToolSearch with query \"select:<name>[,<name>...]\" to load them:\n" +
		"CronCreate\nmcp__tmux-mcp__run_command\nmcp__tmux-mcp__send_keys\n\nAvailable agent types for the Agent tool:\n- claude: ..."
	want := []string{"CronCreate", "mcp__tmux-mcp__run_command", "mcp__tmux-mcp__send_keys"}
	if got := deferredNames(text); !slices.Equal(got, want) {
		t.Errorf("deferredNames = %q, want %q", got, want)
	}
	if got := deferredNames("no list here"); got != nil {
		t.Errorf("deferredNames without the list = %q, want none", got)
	}
}

func TestResultText(t *testing.T) {
	tests := []struct{ name, raw, want string }{
		{"a string (Claude, Codex)", `"Wall time: 0.1 seconds\nOutput:\n{\"ok\":true}"`, "Wall time: 0.1 seconds\nOutput:\n{\"ok\":true}"},
		{"text blocks (Claude)", `[{"type":"text","text":"one"},{"type":"text","text":"two"}]`, "one\ntwo"},
		{"Gemini's output", `{"output":"<untrusted_context>\nKeys sent\n</untrusted_context>"}`, "<untrusted_context>\nKeys sent\n</untrusted_context>"},
		{"Gemini's error", `{"error":"refused"}`, "refused"},
		{"no text", `[{"type":"tool_reference","tool_name":"x"}]`, `[{"type":"tool_reference","tool_name":"x"}]`},
		{"nothing", ``, ""},
	}
	for _, tt := range tests {
		if got := resultText(json.RawMessage(tt.raw)); got != tt.want {
			t.Errorf("%s: resultText = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestMCPCallChain checks the bookkeeping of a turn that calls two tools,
// the first deferred (loaded with ToolSearch first): the calls, their
// results and the replies that follow each.
func TestMCPCallChain(t *testing.T) {
	s := &Stub{notify: make(chan struct{})}
	r := Reply{Tool: "run_command", Args: map[string]any{"command": "true"}, Text: "all done",
		Next: &Reply{Tool: "send_keys", Args: map[string]any{"keys": "x"}}}
	deferred := []string{"ToolSearch", "mcp__s__run_command", "mcp__s__send_keys"}
	loaded := func(n string) bool { return n == "ToolSearch" }

	search := s.callMCP("id", r, deferred, loaded, false)
	if search.Name != "ToolSearch" || search.Args["query"] != "select:mcp__s__run_command" {
		t.Fatalf("first call = %+v, want ToolSearch of mcp__s__run_command", search)
	}
	next, ok := s.mcpResult(search.ID, "", false)
	if !ok || next.Tool != "run_command" {
		t.Fatalf("after ToolSearch: %+v (%t), want the call of run_command", next, ok)
	}
	call := s.callMCP("id", next, deferred, func(string) bool { return true }, false)
	if call.Name != "mcp__s__run_command" {
		t.Fatalf("second call = %+v, want mcp__s__run_command", call)
	}
	next, ok = s.mcpResult(call.ID, "ran", false)
	if !ok || next.Tool != "send_keys" || next.Text != "tool done: send_keys" {
		t.Fatalf("after run_command: %+v (%t), want Next, send_keys", next, ok)
	}
	call = s.callMCP("id", next, deferred, nil, false)
	next, ok = s.mcpResult(call.ID, "sent", true)
	if !ok || next.Tool != "" || next.Text != "tool done: send_keys" {
		t.Fatalf("after send_keys: %+v (%t), want the text", next, ok)
	}
	if _, ok := s.mcpResult("other", "", false); ok {
		t.Error("the result of a call not made by callMCP was taken")
	}
	got := s.Calls()
	want := []ToolCall{
		{Tool: "run_command", Name: "mcp__s__run_command", Args: r.Args, Offered: deferred, Searched: true, Done: true, Result: "ran"},
		{Tool: "send_keys", Name: "mcp__s__send_keys", Args: r.Next.Args, Offered: deferred, Done: true, Result: "sent", IsError: true},
	}
	if len(got) != len(want) {
		t.Fatalf("Calls = %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Tool != w.Tool || g.Name != w.Name || g.Searched != w.Searched || g.Done != w.Done || g.Result != w.Result || g.IsError != w.IsError || !slices.Equal(g.Offered, w.Offered) {
			t.Errorf("call %d = %+v, want %+v", i, g, w)
		}
	}

	missing := s.callMCP("id", Reply{Tool: "kill_server"}, deferred, nil, false)
	if missing.Name != "" || missing.Text == "" {
		t.Errorf("a tool not offered: %+v, want no call and a text", missing)
	}
	if c := s.Calls()[2]; c.Name != "" || !c.Done {
		t.Errorf("a tool not offered is recorded as %+v, want over and without a name", c)
	}
}

// TestMCPCallWhileConnecting checks a call of a tool whose server the CLI
// still connects (Claude Code names the server, not its tools): the stub
// searches for the tool by its name while the search says the server
// still connects, calls it once it is offered, and gives up after
// maxSearches.
func TestMCPCallWhileConnecting(t *testing.T) {
	s := &Stub{notify: make(chan struct{})}
	before := []string{"ToolSearch", "Bash"}
	after := []string{"ToolSearch", "Bash", "mcp__s__run_command"}
	r := Reply{Tool: "run_command"}
	for i := 1; ; i++ {
		search := s.callMCP("id", r, before, nil, true)
		if search.Name != "ToolSearch" || search.Args["query"] != "run_command" {
			t.Fatalf("search %d = %+v, want ToolSearch of run_command", i, search)
		}
		next, ok := s.mcpResult(search.ID, "No matching deferred tools found. Some MCP servers are still connecting: s.", false)
		if !ok || next.Tool != "run_command" {
			t.Fatalf("after search %d: %+v (%t), want the call of run_command", i, next, ok)
		}
		r = next
		if i == 2 {
			break
		}
	}
	call := s.callMCP("id", r, after, nil, false)
	if call.Name != "mcp__s__run_command" {
		t.Fatalf("once the server is up: %+v, want the call of mcp__s__run_command", call)
	}
	if got := s.Calls(); len(got) != 1 || !got[0].Searched || got[0].Name != "mcp__s__run_command" || got[0].Done {
		t.Fatalf("Calls = %+v, want one call in flight, searched for", got)
	}

	r = Reply{Tool: "send_keys"}
	for i := 1; i <= maxSearches; i++ {
		search := s.callMCP("id", r, before, nil, true)
		if search.Name != "ToolSearch" {
			t.Fatalf("search %d = %+v, want ToolSearch", i, search)
		}
		r, _ = s.mcpResult(search.ID, "Some MCP servers are still connecting: s.", false)
	}
	if gave := s.callMCP("id", r, before, nil, true); gave.Name != "" || gave.Text == "" {
		t.Errorf("after %d searches: %+v, want no call and a text", maxSearches, gave)
	}
	if c := s.Calls()[1]; c.Name != "" || !c.Done {
		t.Errorf("a tool never offered is recorded as %+v, want over and without a name", c)
	}
}

// backgroundCall returns a stub with one run_command call that Claude
// Code moved to the background as task k6ap5p4xn (a session on
// 2026-07-28): its tool result taken, the call not over.
func backgroundCall(t *testing.T) *Stub {
	t.Helper()
	s := &Stub{notify: make(chan struct{})}
	call := s.callMCP("id", Reply{Tool: "run_command"}, []string{"mcp__s__run_command"}, nil, false)
	started := "MCP tool \"s/run_command\" started server-side task j0123. It was moved to the background as task k6ap5p4xn and keeps running on the server; " +
		"you'll receive a notification with the result when it completes."
	if _, ok := s.mcpResult(call.ID, started, false); !ok {
		t.Fatal("the tool result was not taken")
	}
	if c := s.Calls()[0]; c.Done || c.Task != "k6ap5p4xn" {
		t.Fatalf("after the tool result: %+v, want not over, task k6ap5p4xn", c)
	}
	return s
}

// TestBackgroundTask checks that a call moved to the background is over
// with the result of its task's notification, in a later request: in a
// user message, or in a system message (Claude Code 2.1.332 sends one so
// when the task ends while the model is still at work).
func TestBackgroundTask(t *testing.T) {
	notice := "<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\n\n<task-notification>\n<task-id>k6ap5p4xn</task-id>\n<status>completed</status>\n" +
		"<summary>MCP task j0123 (s/run_command) completed.</summary>\n<result>\n{\"exit_status\":0,\"output\":[\"ran-42\"]}\n</result>\n</task-notification>\n</system-reminder>"
	content, _ := json.Marshal([]map[string]string{{"type": "text", "text": notice}})
	want := `{"exit_status":0,"output":["ran-42"]}`
	for _, role := range []string{"user", "system"} {
		s := backgroundCall(t)
		s.anthropicTasks(&anthropicRequest{Messages: []anthropicMessage{{Role: role, Content: content}}})
		if c := s.Calls()[0]; !c.Done || c.Result != want || c.IsError {
			t.Errorf("after the notification in a %s message: %+v, want over with %s", role, c, want)
		}
	}
	if got := taskNotices(strings.Replace(notice, "completed</status>", "failed</status>", 1)); len(got) != 1 || got[0].completed {
		t.Errorf("a failed task's notice = %+v, want one, not completed", got)
	}
}

// TestBackgroundTaskNoticeInToolResult checks a task notification that
// comes inside another tool call's result.
func TestBackgroundTaskNoticeInToolResult(t *testing.T) {
	notice := "<task-notification>\n<task-id>k6ap5p4xn</task-id>\n<status>completed</status>\n<result>\nran-42\n</result>\n</task-notification>"
	for _, tc := range []struct {
		name    string
		content any
	}{
		{"text blocks", []map[string]string{{"type": "text", "text": "keys sent"}, {"type": "text", "text": notice}}},
		{"a string", "keys sent\n" + notice},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := backgroundCall(t)
			content, _ := json.Marshal([]map[string]any{{"type": "tool_result", "tool_use_id": "other", "content": tc.content}})
			s.anthropicTasks(&anthropicRequest{Messages: []anthropicMessage{{Role: "user", Content: content}}})
			if c := s.Calls()[0]; !c.Done || c.Result != "ran-42" {
				t.Errorf("after the notification in a tool result: %+v, want over with ran-42", c)
			}
		})
	}
}
