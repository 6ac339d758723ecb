package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// The batch tools run a list of tool calls serially, each through the
// handler the server itself calls, at the tool's own tier: a batch may
// call only tools whose tier is at most its own. Tools that enforce
// their own wait ceiling cannot be batched (a batch would hold them past
// it), nor can batches nest.

// toolIndex is the tools an MCP server serves, by name. New fills it in
// before serving; the batch tools look their operations up in it.
type toolIndex struct {
	byName map[string]Entry
}

// selfBounded names the tools that enforce their own wait ceiling.
var selfBounded = map[string]bool{"run_command": true, "wait_for_text": true, "wait_for_channel": true}

var batchTools = []string{"call_readonly_tools_batch", "call_mutating_tools_batch", "call_destructive_tools_batch"}

const (
	maxBatchOps = 1000
	// maxBatchResponse bounds the batch's result on the wire: the
	// structured content plus its JSON text, so about half of it is what
	// a model reads (a client hands it one of the two), as much as a
	// capture keeps by default (128,000 bytes). libtmux-mcp: 1 MB.
	maxBatchResponse = 256_000
	batchTruncated   = "[... batch truncated nested content ...]"
)

var batchSchema = tooldef.Record(tInt, []string{"succeeded", "failed", "response_truncated_bytes"}, map[string]any{
	"results":            map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
	"stopped_at":         tIntNull,
	"response_truncated": tBool,
})

var (
	pOperations = mcp.WithArray("operations", mcp.Required(), mcp.Items(map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"tool": tString, "arguments": map[string]any{"type": "object"}},
		"required":             []string{"tool"},
		"additionalProperties": false,
	}))
	pOnError = mcp.WithString("on_error", mcp.Enum("stop", "continue"))
)

// CallReadonlyToolsBatch runs readonly tools in one call.
func CallReadonlyToolsBatch(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	return batchTool(d, "call_readonly_tools_batch", Readonly, tooldef.Read, "Run readonly tools in order.")
}

// CallMutatingToolsBatch runs readonly and mutating tools in one call.
func CallMutatingToolsBatch(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	return batchTool(d, "call_mutating_tools_batch", Mutating, tooldef.Batch, "Run readonly and mutating tools in order.")
}

// CallDestructiveToolsBatch runs tools of any tier in one call.
func CallDestructiveToolsBatch(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	return batchTool(d, "call_destructive_tools_batch", Destructive, tooldef.Batch, "Run tools of any tier in order.")
}

// batchRow is one operation's outcome. content is left out (null) when
// the tool returned structured content: it is the same data as text.
type batchRow struct {
	Index             int           `json:"index"`
	Tool              string        `json:"tool"`
	Success           bool          `json:"success"`
	Error             *string       `json:"error"`
	Content           []mcp.Content `json:"content"`
	StructuredContent any           `json:"structured_content"`
	Meta              *mcp.Meta     `json:"meta"`
	ElapsedSeconds    float64       `json:"elapsed_seconds"`
}

type batchOp struct {
	tool string
	args map[string]any
}

func batchTool(d Deps, name string, tier Tier, h tooldef.Hints, desc string) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New(name, desc, h, batchSchema, pOperations, pOnError)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		ops, err := batchOps(p)
		if err != nil {
			return nil, err
		}
		if d.index == nil {
			return nil, errors.New("tools: batch tools need a server built by New")
		}
		var rows []batchRow
		succeeded, failed := 0, 0
		var stoppedAt *int
		for i, op := range ops {
			row, err := d.runOp(ctx, i, op, tier)
			if err != nil {
				return nil, err // the batch's own context ended
			}
			rows = append(rows, row)
			if row.Success {
				succeeded++
				continue
			}
			failed++
			if p.Str("on_error") != "continue" {
				stoppedAt = &i
				break
			}
		}
		return batchResult(rows, succeeded, failed, stoppedAt)
	})
}

// batchOps checks the operations argument: 1 to maxBatchOps objects of
// {tool, arguments}.
func batchOps(p tooldef.Args) ([]batchOp, error) {
	items, _ := p["operations"].([]any)
	switch {
	case len(items) == 0:
		return nil, &toolError{msg: "operations must contain at least one tool call", class: "argument"}
	case len(items) > maxBatchOps:
		return nil, &toolError{msg: fmt.Sprintf("operations must contain at most %d tool calls", maxBatchOps), class: "argument",
			hint: "Split the work into several batches."}
	}
	ops := make([]batchOp, 0, len(items))
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, tooldef.BadArg("operations", "item %d: want an object {tool, arguments}, got %s", i, tooldef.JSONType(it))
		}
		for k := range m {
			if k != "tool" && k != "arguments" {
				return nil, tooldef.BadArg("operations", "item %d: unknown field %q (want tool, arguments)", i, k)
			}
		}
		tool, ok := m["tool"].(string)
		if !ok || tool == "" {
			return nil, tooldef.BadArg("operations", "item %d: tool: want a tool name", i)
		}
		args := map[string]any{}
		switch a := m["arguments"].(type) {
		case nil:
		case map[string]any:
			args = a
		default:
			return nil, tooldef.BadArg("operations", "item %d: arguments: want object, got %s", i, tooldef.JSONType(a))
		}
		ops = append(ops, batchOp{tool: tool, args: args})
	}
	return ops, nil
}

// runOp runs one operation. Refusals and tool errors are failed rows; the
// error is only for the end of the batch's own context.
func (d Deps) runOp(ctx context.Context, i int, op batchOp, tier Tier) (batchRow, error) {
	start := time.Now()
	row := batchRow{Index: i, Tool: op.tool}
	fail := func(msg string) (batchRow, error) {
		row.Error = &msg
		row.ElapsedSeconds = elapsed(start)
		return row, nil
	}
	e, known := d.index.byName[op.tool]
	switch {
	case slices.Contains(batchTools, op.tool):
		return fail("Batch tools cannot call batch tools recursively.")
	case !known:
		return fail(fmt.Sprintf("Unknown tool: '%s'", op.tool))
	case selfBounded[op.tool]:
		return fail(fmt.Sprintf("Tool '%s' enforces its own wait ceiling and cannot be batched; call it directly.", op.tool))
	case e.Tier > tier:
		return fail(fmt.Sprintf("Tool '%s' has tier '%s', which exceeds batch tier %s.", op.tool, e.Tier, tier))
	}
	var req mcp.CallToolRequest
	req.Params.Name = op.tool
	req.Params.Arguments = op.args
	// The middleware every call gets, but the drain (the batch holds it).
	log := d.log()
	res, err := mcpserver.LogCalls(log)(mcpserver.RecoverPanics(log)(e.Handler))(guard.Nested(ctx), req)
	if ctx.Err() != nil {
		return row, ctx.Err()
	}
	switch {
	case err != nil:
		return fail(err.Error())
	case res == nil:
		return fail("no result")
	case res.IsError:
		row.Meta = res.Meta
		return fail(mcpserver.ResultText(res))
	}
	row.Success = true
	row.StructuredContent = res.StructuredContent
	if res.StructuredContent == nil {
		row.Content = res.Content
	}
	row.ElapsedSeconds = elapsed(start)
	return row, nil
}

func elapsed(since time.Time) float64 {
	return math.Round(time.Since(since).Seconds()*1e6) / 1e6
}

// batchResult encodes the result. When the result would pass
// maxBatchResponse on the wire, the largest rows' content and structured
// content are replaced by a marker until it fits.
func batchResult(rows []batchRow, succeeded, failed int, stoppedAt *int) (*mcp.CallToolResult, error) {
	raws := make([]json.RawMessage, len(rows))
	cost := make([]int, len(rows))
	total := 0
	for i := range rows {
		b, err := mcpserver.EncodeJSON(rows[i])
		if err != nil {
			return nil, fmt.Errorf("tools: encode batch row %d: %w", i, err)
		}
		raws[i], cost[i] = b, wireCost(b)
		total += cost[i]
	}
	env := struct {
		Results                []json.RawMessage `json:"results"`
		Succeeded              int               `json:"succeeded"`
		Failed                 int               `json:"failed"`
		StoppedAt              *int              `json:"stopped_at"`
		ResponseTruncated      bool              `json:"response_truncated"`
		ResponseTruncatedBytes int               `json:"response_truncated_bytes"`
	}{Results: raws, Succeeded: succeeded, Failed: failed, StoppedAt: stoppedAt}
	// What is not rows: the envelope with a generous allowance for the
	// numbers and the JSON-RPC frame around it.
	const frame = 4096
	cut := map[int]bool{}
	for total+frame > maxBatchResponse {
		big := -1
		for i := range rows {
			if !cut[i] && (big < 0 || cost[i] > cost[big]) {
				big = i
			}
		}
		if big < 0 {
			break
		}
		cut[big] = true
		r := rows[big]
		r.Content = []mcp.Content{mcp.NewTextContent(batchTruncated)}
		r.StructuredContent = nil
		b, err := mcpserver.EncodeJSON(r)
		if err != nil {
			return nil, fmt.Errorf("tools: encode batch row %d: %w", big, err)
		}
		env.ResponseTruncated = true
		env.ResponseTruncatedBytes += len(raws[big]) - len(b)
		total += wireCost(b) - cost[big]
		raws[big], cost[big] = b, wireCost(b)
	}
	res, err := structured(env)
	if err != nil || len(cut) == 0 {
		return res, err
	}
	ops := slices.Sorted(maps.Keys(cut))
	res.Content = append(res.Content, mcp.NewTextContent(fmt.Sprintf(
		"The results of operations %v were left out to keep this result under %d bytes: call those tools alone.",
		ops, maxBatchResponse)))
	return res, nil
}

// wireCost is what b costs in a result: once as structured content and
// once inside the JSON text, escaped.
func wireCost(b []byte) int {
	s, _ := mcpserver.EncodeJSON(string(b))
	return len(b) + len(s) - 2
}
