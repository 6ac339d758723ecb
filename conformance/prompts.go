//go:build conformance

package conformance

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The prompts of prompts-get-simple, prompts-get-with-args,
// prompts-get-embedded-resource and prompts-get-with-image.
func prompts() []server.ServerPrompt {
	return []server.ServerPrompt{
		{Prompt: mcp.NewPrompt("test_simple_prompt", mcp.WithPromptDescription("A simple prompt without arguments")),
			Handler: func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return messages(mcp.NewTextContent("This is a simple prompt for testing.")), nil
			}},
		{Prompt: mcp.NewPrompt("test_prompt_with_arguments", mcp.WithPromptDescription("A prompt with required arguments"),
			mcp.WithArgument("arg1", mcp.ArgumentDescription("First test argument"), mcp.RequiredArgument()),
			mcp.WithArgument("arg2", mcp.ArgumentDescription("Second test argument"), mcp.RequiredArgument())),
			Handler: func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				a := req.Params.Arguments
				return messages(mcp.NewTextContent(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]))), nil
			}},
		{Prompt: mcp.NewPrompt("test_prompt_with_embedded_resource",
			mcp.WithPromptDescription("A prompt that includes an embedded resource"),
			mcp.WithArgument("resourceUri", mcp.ArgumentDescription("URI of the resource to embed"), mcp.RequiredArgument())),
			Handler: func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return messages(
					mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: req.Params.Arguments["resourceUri"],
						MIMEType: "text/plain", Text: "Embedded resource content for testing."}),
					mcp.NewTextContent("Please process the embedded resource above.")), nil
			}},
		{Prompt: mcp.NewPrompt("test_prompt_with_image", mcp.WithPromptDescription("A prompt that includes image content")),
			Handler: func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return messages(mcp.NewImageContent(pngBase64, "image/png"), mcp.NewTextContent("Please analyze the image above.")), nil
			}},
	}
}

// messages is a prompt of one user message per content.
func messages(content ...mcp.Content) *mcp.GetPromptResult {
	msgs := make([]mcp.PromptMessage, len(content))
	for i, c := range content {
		msgs[i] = mcp.NewPromptMessage(mcp.RoleUser, c)
	}
	return mcp.NewGetPromptResult("", msgs)
}
