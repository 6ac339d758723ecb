package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// mcpClient is one MCP session with tmux-mcp over streamable HTTP, on an
// HTTP connection of its own, as a separate agent process would have.
type mcpClient struct {
	c *client.Client
}

// dial opens and initializes a session at url with the bearer token.
func dial(ctx context.Context, url, token, name string) (*mcpClient, error) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}}
	c, err := client.NewStreamableHttpClient(url,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}),
		transport.WithHTTPBasicClient(hc))
	if err != nil {
		return nil, fmt.Errorf("scale: client: %w", err)
	}
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("scale: start client: %w", err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "0"}
	ictx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := c.Initialize(ictx, init); err != nil {
		c.Close()
		return nil, fmt.Errorf("scale: initialize %s: %w", name, err)
	}
	return &mcpClient{c: c}, nil
}

func (m *mcpClient) close() { m.c.Close() } //nolint:errcheck // the server may be gone

// result is a tool call's outcome: its structured content (nil when it
// had none), its text and, for a failure, its error class.
type result struct {
	fields map[string]any
	text   string // the text content, then the structured content as JSON
	class  string // "" on success
}

// tool calls a tool. Every failure, a tool error result or a protocol or
// transport error, comes back with a class.
func (m *mcpClient) tool(ctx context.Context, name string, args map[string]any) result {
	r, err := loadtest.CallTool(ctx, m.c, name, args)
	if err != nil {
		return result{class: errClass(err), text: err.Error()}
	}
	out := result{text: r.Text + "\n" + string(r.Raw), class: r.Class}
	if len(r.Raw) > 0 {
		json.Unmarshal(r.Raw, &out.fields) //nolint:errcheck // fields stay nil: the text is still searched
	}
	return out
}

// str and boolean read a field of a structured result.
func (r result) str(k string) string {
	s, _ := r.fields[k].(string)
	return s
}

func (r result) boolean(k string) bool {
	b, _ := r.fields[k].(bool)
	return b
}

// errClass names the class of a protocol or transport error.
func errClass(err error) string {
	return loadtest.ErrorClass(err, "http_", []string{"503", "429", "404", "connection refused", "connection reset", "eof"})
}
