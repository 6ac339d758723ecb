package agentstub

import "encoding/json"

// geminiFunctionResponse is a functionResponse part: the result of a
// function call, by the call's id.
type geminiFunctionResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// isError says the response is an error ({"error": ...}).
func (fr geminiFunctionResponse) isError() bool {
	var r map[string]json.RawMessage
	if json.Unmarshal(fr.Response, &r) != nil {
		return false
	}
	_, ok := r["error"]
	return ok
}

// toolNames are the names of the functions req declares.
func (req *geminiRequest) toolNames() []string {
	var names []string
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			names = append(names, f.Name)
		}
	}
	return names
}

// geminiMCP is the functionCall of reply's MCP tool call, or nil and the
// text that says the tool is not offered.
func (s *Stub) geminiMCP(req *geminiRequest, reply Reply) (call map[string]any, text string) {
	c := s.callMCP("gemini_call_", reply, req.toolNames(), nil, false)
	if c.Name == "" {
		return nil, c.Text
	}
	return map[string]any{"id": c.ID, "name": c.Name, "args": c.Args}, reply.Text
}
