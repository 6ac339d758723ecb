package tools

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Listings that fit. Every listing takes filters ({field__op: value} on
// its items' fields, tooldef/filters.go) and, where it can grow large, a limit;
// its result says how many items matched the filters (matched) and how
// many of those the limit left out (left_out), so an agent knows whether
// it saw everything. When some were left out, a second text block says
// how to see them: clients that read only text get the hint, clients
// that read the structured content get the counts.

// pLimitItems is the limit of a listing (paramdoc.go describes it);
// pFilters (target.go) its filters.
var pLimitItems = mcp.WithInteger("limit")

// listLimit is the default limit of a listing of sessions, windows, panes
// or environment variables.
const listLimit = 100

// pageOf is the output schema of a listing whose items are under key:
// {key: [item...], matched, left_out}.
func pageOf(key string, item map[string]any) map[string]any {
	return tooldef.Record(nil, []string{"matched", "left_out"},
		map[string]any{key: map[string]any{"type": "array", "items": item}})

}

// listPage returns a page as {"result": items, "matched", "left_out"}.
func listPage[T any](p tooldef.Page[T], how string) (*mcp.CallToolResult, error) {
	return pageResult(struct {
		Result  []T `json:"result"`
		Matched int `json:"matched"`
		LeftOut int `json:"left_out"`
	}{p.Items, p.Matched, p.LeftOut}, p.LeftOut, p.Matched, how)
}

// pageResult encodes v, a listing's result, and adds the hint of how to
// see the items left out, if any: "how" names the way (a larger limit,
// offset, since).
func pageResult(v any, leftOut, matched int, how string) (*mcp.CallToolResult, error) {
	b, err := mcpserver.EncodeJSON(v)
	if err != nil {
		return nil, fmt.Errorf("tools: encode result: %w", err)
	}
	res := mcp.NewToolResultStructured(json.RawMessage(b), string(b))
	if leftOut > 0 {
		res.Content = append(res.Content, mcp.NewTextContent(fmt.Sprintf("%d of %d matched left out: %s, or narrow with filters.",
			leftOut, matched, how)))
	}
	return res, nil
}
