//go:build conformance

package conformance

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Tools whose result is what the scenario checks: tools-call-simple-text,
// tools-call-image, tools-call-audio, tools-call-embedded-resource,
// tools-call-mixed-content and tools-call-error. None takes arguments.
func contentTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool("test_simple_text", mcp.WithDescription("Tests simple text content response")),
			Handler: result(mcp.NewTextContent("This is a simple text response for testing."))},
		{Tool: mcp.NewTool("test_image_content", mcp.WithDescription("Tests image content response")),
			Handler: result(mcp.NewImageContent(pngBase64, "image/png"))},
		{Tool: mcp.NewTool("test_audio_content", mcp.WithDescription("Tests audio content response")),
			Handler: result(mcp.NewAudioContent(wavBase64, "audio/wav"))},
		{Tool: mcp.NewTool("test_embedded_resource", mcp.WithDescription("Tests embedded resource content response")),
			Handler: result(mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "test://embedded-resource",
				MIMEType: "text/plain", Text: "This is an embedded resource content."}))},
		{Tool: mcp.NewTool("test_multiple_content_types",
			mcp.WithDescription("Tests response with multiple content types (text, image, resource)")),
			Handler: result(
				mcp.NewTextContent("Multiple content types test:"),
				mcp.NewImageContent(pngBase64, "image/png"),
				mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "test://mixed-content-resource",
					MIMEType: "application/json", Text: `{"test":"data","value":123}`}))},
		{Tool: mcp.NewTool("test_error_handling", mcp.WithDescription("Tests error response handling")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultError("This tool intentionally returns an error for testing"), nil
			}},
	}
}

// result is a handler that answers with content.
func result(content ...mcp.Content) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: content}, nil
	}
}
