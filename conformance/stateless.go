//go:build conformance

package conformance

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The diagnostic tools of server-stateless (protocol 2026-07-28, SEP-2575),
// which it finds in tools/list:
//
//   - test_missing_capability needs the client's sampling capability and
//     must be refused with MissingRequiredClientCapabilityError (-32021,
//     HTTP 400, data.requiredCapabilities {"sampling": {}}) when the
//     request did not declare it;
//   - test_streaming_elicitation answers on the request's stream, on
//     which only notifications may come before the result;
//   - test_logging_tool logs, which a request that named no log level in
//     its _meta must not hear.

func statelessTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool("test_missing_capability",
			mcp.WithDescription("Needs the client's sampling capability: refused with -32021 when the request does not declare it")),
			Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if c := clientCaps(ctx); c == nil || c.Sampling == nil {
					return nil, &capabilityError{capability: "sampling"}
				}
				return mcp.NewToolResultText("Success"), nil
			}},
		{Tool: mcp.NewTool("test_streaming_elicitation",
			mcp.WithDescription("Diagnostic tool validating response progress streams")),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
					notify(ctx, string(mcp.MethodNotificationProgress), map[string]any{
						"progressToken": req.Params.Meta.ProgressToken, "progress": 50, "total": 100})
				}
				return mcp.NewToolResultText("Streaming complete"), nil
			}},
		{Tool: mcp.NewTool("test_logging_tool", mcp.WithDescription("Diagnostic logging validator tool")),
			Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				logInfo(ctx, "Diagnostic trace logging activated")
				return mcp.NewToolResultText("Logging evaluated"), nil
			}},
	}
}

// clientCaps returns the capabilities the client of ctx declared: in the
// request from 2026-07-28 on, else at initialize; nil when unknown.
func clientCaps(ctx context.Context) *mcp.ClientCapabilities {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.ClientCapabilities
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		c := s.GetClientCapabilities()
		return &c
	}
	return nil
}

// capabilityError is a call refused for a client capability its request
// did not declare: MissingRequiredClientCapabilityError, code -32021 with
// data.requiredCapabilities naming the capability. mcp-go (v1.2.1)
// answers every error of a tool handler with -32603; the code and data
// reach the client only through a layer that reads JSONRPCCode and
// JSONRPCData off the error (taskext does the code for a failed task).
type capabilityError struct{ capability string }

func (e *capabilityError) Error() string {
	return fmt.Sprintf("missing required client capability: declare %q in _meta[%q]", e.capability, mcp.MetaKeyClientCapabilities)
}

// Unwrap lets errors.As find mcp-go's type for the condition.
func (e *capabilityError) Unwrap() error {
	return mcp.MissingRequiredClientCapabilityError{Capability: e.capability}
}

// JSONRPCCode is the error's JSON-RPC code.
func (e *capabilityError) JSONRPCCode() int { return mcp.MISSING_REQUIRED_CLIENT_CAPABILITY }

// JSONRPCData is the error's data: the capabilities the client must
// declare, shaped as ClientCapabilities.
func (e *capabilityError) JSONRPCData() any {
	return map[string]any{"requiredCapabilities": map[string]any{e.capability: map[string]any{}}}
}
