package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
)

type batchResultT struct {
	Results []struct {
		Index             int             `json:"index"`
		Tool              string          `json:"tool"`
		Success           bool            `json:"success"`
		Error             *string         `json:"error"`
		Content           json.RawMessage `json:"content"`
		StructuredContent json.RawMessage `json:"structured_content"`
		Meta              map[string]any  `json:"meta"`
		ElapsedSeconds    float64         `json:"elapsed_seconds"`
	} `json:"results"`
	Succeeded              int  `json:"succeeded"`
	Failed                 int  `json:"failed"`
	StoppedAt              *int `json:"stopped_at"`
	ResponseTruncated      bool `json:"response_truncated"`
	ResponseTruncatedBytes int  `json:"response_truncated_bytes"`
}

// op is one batch operation.
func op(tool string, args map[string]any) any {
	m := map[string]any{"tool": tool}
	if args != nil {
		m["arguments"] = args
	}
	return m
}

func (e *env) batch(tool string, onError string, ops ...any) batchResultT {
	e.t.Helper()
	args := map[string]any{"operations": ops}
	if onError != "" {
		args["on_error"] = onError
	}
	var r batchResultT
	e.ok(tool, args, &r)
	return r
}

func rowError(r batchResultT, i int) string {
	if i >= len(r.Results) || r.Results[i].Error == nil {
		return ""
	}
	return *r.Results[i].Error
}

func TestBatchRunsCallsInOrder(t *testing.T) {
	e := newEnv(t, Readonly)
	pane := e.firstPane()
	r := e.batch("call_readonly_tools_batch", "",
		op("get_pane_info", map[string]any{"pane_id": pane}),
		op("display_message", map[string]any{"format_string": "#{session_name}"}))
	if r.Succeeded != 2 || r.Failed != 0 || r.StoppedAt != nil || len(r.Results) != 2 {
		t.Fatalf("batch = %+v, want 2 successes", r)
	}
	for i, row := range r.Results {
		if row.Index != i || !row.Success || row.Error != nil || row.ElapsedSeconds < 0 || row.Meta != nil {
			t.Errorf("row %d = %+v", i, row)
		}
		// Structured content only: the text form would repeat it.
		if string(row.Content) != "null" {
			t.Errorf("row %d content = %s, want null next to structured content", i, row.Content)
		}
	}
	var p PaneInfo
	if err := json.Unmarshal(r.Results[0].StructuredContent, &p); err != nil || p.PaneID != pane || r.Results[0].Tool != "get_pane_info" {
		t.Errorf("row 0 = %s %s, want get_pane_info of %s", r.Results[0].Tool, r.Results[0].StructuredContent, pane)
	}
	if got := string(r.Results[1].StructuredContent); got != `{"result":"main"}` {
		t.Errorf("row 1 structured content = %s, want {\"result\":\"main\"}", got)
	}
}

// TestBatchTiers checks that each batch runs only tools at or below its
// tier and refuses the others without running them.
func TestBatchTiers(t *testing.T) {
	e := newEnv(t, Destructive)
	pane := e.split(e.firstPane())
	title := func() string { return e.tmux("display-message", "-p", "-t", pane, "#{pane_title}") }
	before := title()

	r := e.batch("call_readonly_tools_batch", "", op("set_pane_title", map[string]any{"pane_id": pane, "title": "changed"}))
	if r.Succeeded != 0 || r.Failed != 1 || r.StoppedAt == nil || *r.StoppedAt != 0 ||
		rowError(r, 0) != "Tool 'set_pane_title' has tier 'mutating', which exceeds batch tier readonly." {
		t.Errorf("readonly batch of set_pane_title = %+v (%s)", r, rowError(r, 0))
	}
	if got := title(); got != before {
		t.Errorf("pane title = %q after a refused batch, want %q", got, before)
	}
	r = e.batch("call_mutating_tools_batch", "", op("kill_pane", map[string]any{"pane_id": pane}))
	if r.Failed != 1 || rowError(r, 0) != "Tool 'kill_pane' has tier 'destructive', which exceeds batch tier mutating." {
		t.Errorf("mutating batch of kill_pane = %+v (%s)", r, rowError(r, 0))
	}
	e.tmux("display-message", "-p", "-t", pane, "#{pane_id}") // still there

	r = e.batch("call_mutating_tools_batch", "",
		op("set_pane_title", map[string]any{"pane_id": pane, "title": "changed"}),
		op("get_pane_info", map[string]any{"pane_id": pane}))
	if r.Succeeded != 2 || title() != "changed" {
		t.Errorf("mutating batch = %+v, title %q; want both run", r, title())
	}
	r = e.batch("call_destructive_tools_batch", "", op("kill_pane", map[string]any{"pane_id": pane}))
	if r.Succeeded != 1 {
		t.Errorf("destructive batch of kill_pane = %+v (%s)", r, rowError(r, 0))
	}
}

func TestBatchRefusals(t *testing.T) {
	e := newEnv(t, Destructive)
	for _, batch := range batchTools {
		for _, tt := range []struct {
			op   any
			want string
		}{
			{op("wait_for_channel", map[string]any{"channel": "c"}),
				"Tool 'wait_for_channel' enforces its own wait ceiling and cannot be batched; call it directly."},
			{op("call_readonly_tools_batch", map[string]any{"operations": []any{op("list_sessions", nil)}}),
				"Batch tools cannot call batch tools recursively."},
			{op("nope", nil), "Unknown tool: 'nope'"},
		} {
			// continue: the refusal is a failed row and the next call runs.
			r := e.batch(batch, "continue", tt.op, op("list_sessions", nil))
			if r.Failed != 1 || r.Succeeded != 1 || r.StoppedAt != nil || rowError(r, 0) != tt.want || !r.Results[1].Success {
				t.Errorf("%s(%v, list_sessions) = %+v, row 0 error %q; want %q then a success", batch, tt.op, r, rowError(r, 0), tt.want)
			}
		}
	}
}

func TestBatchStopAndContinue(t *testing.T) {
	e := newEnv(t, Mutating)
	pane := e.firstPane()
	ops := []any{
		op("set_pane_title", map[string]any{"pane_id": pane, "title": "BEFORE"}),
		op("set_pane_title", map[string]any{"pane_id": "%999", "title": "MISSING"}),
		op("set_pane_title", map[string]any{"pane_id": pane, "title": "AFTER"}),
	}
	r := e.batch("call_mutating_tools_batch", "", ops...)
	if r.Succeeded != 1 || r.Failed != 1 || r.StoppedAt == nil || *r.StoppedAt != 1 || len(r.Results) != 2 {
		t.Errorf("stop mode = %+v, want to stop at 1 after one success", r)
	}
	if got := e.tmux("display-message", "-p", "-t", pane, "#{pane_title}"); got != "BEFORE" {
		t.Errorf("title after stop mode = %q, want BEFORE (AFTER never sent)", got)
	}
	if err := rowError(r, 1); !strings.Contains(err, "Pane not found: %999") || !strings.Contains(err, "Call list_panes") ||
		r.Results[1].Meta["error_type"] != "pane_not_found" {
		t.Errorf("row 1 = %q meta %v, want the pane error with its hint and class", err, r.Results[1].Meta)
	}
	r = e.batch("call_mutating_tools_batch", "continue", ops...)
	if r.Succeeded != 2 || r.Failed != 1 || r.StoppedAt != nil || len(r.Results) != 3 || r.Results[1].Success {
		t.Errorf("continue mode = %+v, want 2 successes around a failure", r)
	}
	if got := e.tmux("display-message", "-p", "-t", pane, "#{pane_title}"); got != "AFTER" {
		t.Errorf("title after continue mode = %q, want AFTER", got)
	}
}

func TestBatchArguments(t *testing.T) {
	e := newEnv(t, Readonly)
	e.fails("call_readonly_tools_batch", map[string]any{"operations": []any{}}, "operations must contain at least one tool call")
	many := make([]any, maxBatchOps+1)
	for i := range many {
		many[i] = op("list_sessions", nil)
	}
	res := e.call("call_readonly_tools_batch", map[string]any{"operations": many})
	if !res.IsError || !strings.Contains(text(res), "operations must contain at most 1000 tool calls") || res.StructuredContent != nil {
		t.Errorf("1001 operations: got %q (error %v)", text(res), res.IsError)
	}
	e.fails("call_readonly_tools_batch", map[string]any{"operations": []any{map[string]any{"tool": "list_sessions", "pane": "x"}}},
		`argument operations: item 0: unknown field "pane"`)
	e.fails("call_readonly_tools_batch", map[string]any{"operations": []any{map[string]any{"tool": "list_sessions", "arguments": "x"}}},
		"argument operations: item 0: arguments: want object")
	e.fails("call_readonly_tools_batch", map[string]any{"operations": []any{"list_sessions"}}, "argument operations: want an array of objects; item 0 is of type string")
	e.fails("call_readonly_tools_batch", map[string]any{"operations": []any{op("list_sessions", nil)}, "on_error": "ignore"},
		"argument on_error: want one of stop, continue")
	// An inner call's own argument check still applies.
	r := e.batch("call_readonly_tools_batch", "", op("list_sessions", map[string]any{"bogus": 1}))
	if !strings.Contains(rowError(r, 0), "unknown argument(s): bogus") {
		t.Errorf("inner bad argument: row error %q", rowError(r, 0))
	}
}

// TestBatchTruncatesLargeResponses checks that a batch whose result would
// pass maxBatchResponse on the wire drops nested content, the largest rows first.
func TestBatchTruncatesLargeResponses(t *testing.T) {
	e := newEnv(t, Mutating)
	big := strings.Repeat("y", 300_000)
	a, b := e.loadBuffer(big+"A", ""), e.loadBuffer(big+"B", "")
	small := e.loadBuffer("small", "")
	res := e.ok("call_readonly_tools_batch", map[string]any{"operations": []any{
		op("show_buffer", map[string]any{"buffer_name": a, "max_lines": 0}),
		op("show_buffer", map[string]any{"buffer_name": b, "max_lines": 0}),
		op("show_buffer", map[string]any{"buffer_name": small}),
	}}, nil)
	wire, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(wire) > maxBatchResponse {
		t.Errorf("batch result is %d bytes on the wire, want at most %d", len(wire), maxBatchResponse)
	}
	var r batchResultT
	if err := json.Unmarshal(structuredJSON(t, res), &r); err != nil {
		t.Fatal(err)
	}
	if !r.ResponseTruncated || r.ResponseTruncatedBytes < 300_000 || r.Succeeded != 3 {
		t.Errorf("truncated %v by %d bytes, %d succeeded; want truncation of at least one big row", r.ResponseTruncated, r.ResponseTruncatedBytes, r.Succeeded)
	}
	cut := 0
	for i, row := range r.Results {
		if strings.Contains(string(row.Content), batchTruncated) {
			cut++
			if string(row.StructuredContent) != "null" {
				t.Errorf("row %d: truncated content but structured content kept", i)
			}
		}
	}
	if got := text(res); !strings.Contains(got, "were left out to keep this result under 256000 bytes: call those tools alone") {
		t.Errorf("batch text does not say how to get the rows cut: %.200q", got[max(0, len(got)-300):])
	}
	if cut == 0 || cut == 3 || !strings.Contains(string(r.Results[2].StructuredContent), "small") {
		t.Errorf("%d rows truncated, small row %s; want the big rows cut first and the small one kept", cut, r.Results[2].StructuredContent)
	}
}

// TestBatchCallsWhatTheServerServes checks that a batch sees the tools of
// the selected toolsets only, and that a panic in a tool it calls is that
// row's error.
func TestBatchCallsWhatTheServerServes(t *testing.T) {
	e := newEnv(t, Readonly)
	srv, err := New(Deps{Sup: e.sup, Tier: Readonly}, Options{Toolsets: []string{"batch", "server"}, Settings: mcpserver.Settings{ValidateOutput: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	e.c = startClient(t, srv)
	r := e.batch("call_readonly_tools_batch", "continue", op("get_pane_info", nil), op("list_sessions", nil))
	if rowError(r, 0) != "Unknown tool: 'get_pane_info'" || r.Succeeded != 1 {
		t.Errorf("batch outside the toolsets = %+v (%s), want get_pane_info unknown", r, rowError(r, 0))
	}

	srv.deps.index.byName["boom"] = Entry{Tier: Readonly, Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("kaboom")
	}}
	r = e.batch("call_readonly_tools_batch", "continue", op("boom", nil), op("list_sessions", nil))
	if !strings.Contains(rowError(r, 0), "internal error in boom: panic: kaboom") || r.Succeeded != 1 {
		t.Errorf("batch with a panicking tool = %+v (%s)", r, rowError(r, 0))
	}
}
