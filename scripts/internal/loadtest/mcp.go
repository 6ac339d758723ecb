package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// ToolResult is a tool call's outcome.
type ToolResult struct {
	Raw   json.RawMessage // the structured content; empty when it had none
	Text  string          // the text content
	Class string          // "" on success, else the tool error's class
}

// classRe finds the [class] tmux-mcp puts in the first line of an error.
var classRe = regexp.MustCompile(`\[([a-z_]+)\]`)

// CallTool calls a tool with c. A tool error result comes back as a
// ToolResult with its class (the [class] of its first line, else
// "tool_error"); a protocol or transport failure as an error.
func CallTool(ctx context.Context, c *client.Client, name string, args map[string]any) (ToolResult, error) {
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return ToolResult{}, err
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	out := ToolResult{Raw: res.RawStructuredContent, Text: text.String()}
	if len(out.Raw) == 0 && res.StructuredContent != nil {
		out.Raw, _ = json.Marshal(res.StructuredContent)
	}
	if res.IsError {
		out.Class = "tool_error"
		if m := classRe.FindStringSubmatch(FirstLine(out.Text)); m != nil {
			out.Class = m[1]
		}
	}
	return out, nil
}

// ErrorClass names the class of a protocol or transport error: "" for
// none, deadline, canceled, the [class] in its first line, else the
// first of keywords its text contains (lower case, spaces as
// underscores, after prefix), else "protocol".
func ErrorClass(err error, prefix string, keywords []string) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	if m := classRe.FindStringSubmatch(FirstLine(err.Error())); m != nil {
		return m[1]
	}
	s := strings.ToLower(err.Error())
	for _, k := range keywords {
		if strings.Contains(s, k) {
			return prefix + strings.ReplaceAll(k, " ", "_")
		}
	}
	return "protocol"
}

// FirstLine returns s up to its first newline.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Health is the part of the server_health tool's result the harnesses
// read. None of it costs a tmux call.
type Health struct {
	State     string `json:"state"`
	PID       int    `json:"pid"`
	Commands  uint64 `json:"commands"`
	Captures  uint64 `json:"captures"`
	Barriers  uint64 `json:"barriers"`
	CacheHits uint64 `json:"cache_hits"`
	Restarts  int    `json:"restarts"`
	FDs       int    `json:"fds"`
	FDLimit   int    `json:"fd_limit"`
	Watchers  int    `json:"watchers"`
	// LastDeathCause and LastDeath say why the server last died.
	LastDeathCause string `json:"last_death_cause"`
	LastDeath      string `json:"last_death"`
}
