//go:build conformance

package conformance

import (
	"slices"

	"github.com/mark3labs/mcp-go/server"
)

// fixtures holds what the fixtures share: the sealer of their
// requestStates.
type fixtures struct{ states sealer }

func newFixtures() *fixtures { return &fixtures{states: newSealer()} }

func (f *fixtures) tools() []server.ServerTool {
	return slices.Concat(contentTools(), schemaTools(), notifyTools(), statelessTools(), f.mrtrTools(), f.taskTools())
}

func (f *fixtures) prompts() []server.ServerPrompt { return append(prompts(), f.mrtrPrompt()) }

// Register adds every fixture to s: tools, prompts, resources and the
// resource template. Call it before the tasks layer adapts the tools
// (taskext's Manager.Attach), which must see failing_job and
// test_tool_with_task, whose task support is required.
func Register(s *server.MCPServer) {
	f := newFixtures()
	for _, t := range f.tools() {
		s.AddTool(t.Tool, t.Handler)
	}
	for _, p := range f.prompts() {
		s.AddPrompt(p.Prompt, p.Handler)
	}
	for _, r := range resources() {
		s.AddResource(r.Resource, r.Handler)
	}
	for _, t := range templates() {
		s.AddResourceTemplate(t.Template, t.Handler)
	}
}

// Names are the names of the fixtures: tools, prompts, and resources and
// templates by URI.
type Names struct{ Tools, Prompts, Resources, Templates []string }

// List returns the names of every fixture Register adds.
func List() Names {
	f := newFixtures()
	var n Names
	for _, t := range f.tools() {
		n.Tools = append(n.Tools, t.Tool.Name)
	}
	for _, p := range f.prompts() {
		n.Prompts = append(n.Prompts, p.Prompt.Name)
	}
	for _, r := range resources() {
		n.Resources = append(n.Resources, r.Resource.URI)
	}
	for _, t := range templates() {
		n.Templates = append(n.Templates, t.Template.URITemplate.Raw())
	}
	return n
}
