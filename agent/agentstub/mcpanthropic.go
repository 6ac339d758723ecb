package agentstub

import "strings"

// deferredMarker begins the system text in which Claude Code names its
// deferred tools, one a line after the colon, up to an empty line.
const deferredMarker = "The following deferred tools are now available via ToolSearch."

// anthropicOffered returns the names of the tools req offers: its tools,
// then the deferred tools its messages name; loaded says which can be
// called as they are (req's tools).
func anthropicOffered(req *anthropicRequest) (names []string, loaded map[string]bool) {
	loaded = map[string]bool{}
	for _, t := range req.Tools {
		names = append(names, t.Name)
		loaded[t.Name] = true
	}
	for _, m := range req.Messages {
		for _, b := range anthropicBlocks(m.Content) {
			for _, n := range deferredNames(b.Text) {
				if !loaded[n] {
					names = append(names, n)
				}
			}
		}
	}
	return names, loaded
}

// deferredNames are the names of the deferred-tools list in text.
func deferredNames(text string) []string {
	_, after, ok := strings.Cut(text, deferredMarker)
	if !ok {
		return nil
	}
	_, list, ok := strings.Cut(after, ":\n")
	if !ok {
		return nil
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var names []string
	for _, l := range strings.Split(list, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.ContainsAny(l, " \t") {
			names = append(names, l)
		}
	}
	return names
}

// anthropicMCP is the tool_use block of reply's MCP tool call (ToolSearch
// first for a deferred tool), or nil and the text that says the tool is
// not offered.
func (s *Stub) anthropicMCP(req *anthropicRequest, reply Reply) (use map[string]any, text string) {
	names, loaded := anthropicOffered(req)
	c := s.callMCP("toolu_stub", reply, names, func(n string) bool { return loaded[n] })
	if c.Name == "" {
		return nil, c.Text
	}
	return map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": c.Args}, reply.Text
}

// anthropicNames are the names of the tools req offers (anthropicOffered).
func anthropicNames(req *anthropicRequest) []string {
	names, _ := anthropicOffered(req)
	return names
}
