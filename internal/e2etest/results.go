package e2etest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// CallTool calls a tool and returns its result; a protocol error or an
// error result fails the test.
func CallTool(tb testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	tb.Helper()
	res, err := CallToolErr(c, name, args)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		tb.Fatalf("%s: error result %v", name, res.Content)
	}
	return res
}

// CallToolErr calls a tool and returns its result, error results
// included, or the protocol error.
func CallToolErr(c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(ctx, req)
}

// ToolFails calls a tool through c and requires a tool error result whose
// text holds every fragment (a protocol error, such as an internal error,
// fails the test).
func ToolFails(t *testing.T, c *client.Client, name string, args map[string]any, fragments ...string) {
	t.Helper()
	res, err := CallToolErr(c, name, args)
	if err != nil {
		t.Fatalf("%s: protocol error %v, want a tool error result", name, err)
	}
	got := Text(res)
	if !res.IsError {
		t.Fatalf("%s: success %q, want an error result", name, got)
	}
	for _, f := range fragments {
		if !strings.Contains(got, f) {
			t.Errorf("%s: error %q, want it to contain %q", name, got, f)
		}
	}
}

// Structured returns a tool result's structured content as JSON.
func Structured(tb testing.TB, res *mcp.CallToolResult) []byte {
	tb.Helper()
	if len(res.RawStructuredContent) > 0 {
		return res.RawStructuredContent
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Decode decodes a tool result's structured content into out.
func Decode(tb testing.TB, res *mcp.CallToolResult, out any) {
	tb.Helper()
	if err := json.Unmarshal(Structured(tb, res), out); err != nil {
		tb.Fatalf("decode: %v", err)
	}
}

// Text is a tool result's text content.
func Text(res *mcp.CallToolResult) string {
	var s strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			s.WriteString(t.Text)
		}
	}
	return s.String()
}

// SessionNames returns the session names in a list_sessions result.
func SessionNames(tb testing.TB, res *mcp.CallToolResult) []string {
	tb.Helper()
	var out struct {
		Result []struct {
			Name string `json:"session_name"`
		} `json:"result"`
	}
	if err := json.Unmarshal(Structured(tb, res), &out); err != nil {
		tb.Fatalf("decode list_sessions: %v", err)
	}
	var names []string
	for _, s := range out.Result {
		names = append(names, s.Name)
	}
	return names
}
