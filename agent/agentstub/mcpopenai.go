package agentstub

import "strings"

// toolNames are the names of the tools req offers; a namespace's tools
// (Codex's MCP servers) as <namespace>__<tool>.
func (req *responsesRequest) toolNames() []string {
	var names []string
	for _, t := range req.Tools {
		if t.Type != "namespace" {
			if t.Name != "" {
				names = append(names, t.Name)
			}
			continue
		}
		for _, f := range t.Tools {
			names = append(names, t.Name+"__"+f.Name)
		}
	}
	return names
}

// openaiMCP is the function call item of reply's MCP tool call, or nil
// and the text that says the tool is not offered. A namespace's tool is
// called by its name and its namespace.
func (s *Stub) openaiMCP(req *responsesRequest, reply Reply) (item map[string]any, text string) {
	c := s.callMCP("call_stub", reply, req.toolNames(), nil, false)
	if c.Name == "" {
		return nil, c.Text
	}
	item = map[string]any{"type": "function_call", "id": "fc_" + c.ID, "call_id": c.ID,
		"name": c.Name, "arguments": mustJSON(c.Args), "status": "completed"}
	for _, t := range req.Tools {
		if name, ok := strings.CutPrefix(c.Name, t.Name+"__"); ok && t.Type == "namespace" {
			item["name"], item["namespace"] = name, t.Name
		}
	}
	return item, reply.Text
}
