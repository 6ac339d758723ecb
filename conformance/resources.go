//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The resources of resources-read-text, resources-read-binary and
// resources-subscribe (test://watched-resource, of revisions before
// 2026-07-28), and the template of resources-templates-read.
func resources() []server.ServerResource {
	static := func(c mcp.ResourceContents) server.ResourceHandlerFunc {
		return func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{c}, nil
		}
	}
	return []server.ServerResource{
		{Resource: mcp.NewResource("test://static-text", "static-text",
			mcp.WithResourceDescription("A static text resource for testing"), mcp.WithMIMEType("text/plain")),
			Handler: static(mcp.TextResourceContents{URI: "test://static-text", MIMEType: "text/plain",
				Text: "This is the content of the static text resource."})},
		{Resource: mcp.NewResource("test://static-binary", "static-binary",
			mcp.WithResourceDescription("A static binary resource (image) for testing"), mcp.WithMIMEType("image/png")),
			Handler: static(mcp.BlobResourceContents{URI: "test://static-binary", MIMEType: "image/png", Blob: pngBase64})},
		{Resource: mcp.NewResource("test://watched-resource", "watched-resource",
			mcp.WithResourceDescription("A resource to subscribe to"), mcp.WithMIMEType("text/plain")),
			Handler: static(mcp.TextResourceContents{URI: "test://watched-resource", MIMEType: "text/plain",
				Text: "Watched resource content"})},
	}
}

func templates() []server.ServerResourceTemplate {
	return []server.ServerResourceTemplate{{
		Template: mcp.NewResourceTemplate("test://template/{id}/data", "template",
			mcp.WithTemplateDescription("A resource template with parameter substitution"),
			mcp.WithTemplateMIMEType("application/json")),
		Handler: func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			id := fmt.Sprint(req.Params.Arguments["id"])
			if ids, ok := req.Params.Arguments["id"].([]string); ok && len(ids) == 1 {
				id = ids[0]
			}
			b, err := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			if err != nil {
				return nil, err
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}, nil
		},
	}}
}
