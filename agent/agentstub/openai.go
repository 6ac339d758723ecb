package agentstub

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The OpenAI Responses API, as Codex CLI calls it.

type responsesRequest struct {
	Model string `json:"model"`
	Input []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		CallID  string          `json:"call_id"`
		Output  json.RawMessage `json:"output"` // a *_call_output's
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"input"`
	Tools []struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"` // a namespace's (Codex's MCP servers)
	} `json:"tools"`
}

// shellCall is the function call that runs command with the first shell
// tool the request offers.
func (req *responsesRequest) shellCall(command string) (name, args string) {
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
	}
	switch {
	case offered["shell_command"]:
		return "shell_command", mustJSON(map[string]any{"command": command})
	case offered["exec_command"]:
		// Escalated: outside the sandbox, which the default approval
		// policy (on-request) asks the user about.
		return "exec_command", mustJSON(map[string]any{"cmd": command, "sandbox_permissions": "require_escalated",
			"justification": "Do you want to run " + command + "?"})
	default:
		return "shell", mustJSON(map[string]any{"command": []string{"bash", "-lc", command}})
	}
}

func (s *Stub) openaiResponses(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.offer(req.toolNames())
	var reply Reply
	n := len(req.Input)
	switch {
	case n > 0 && strings.HasSuffix(req.Input[n-1].Type, "_call_output"):
		in := req.Input[n-1]
		var ok bool
		if reply, ok = s.mcpResult(in.CallID, resultText(in.Output), false); !ok {
			reply = s.toolResult(in.CallID)
		}
	case n > 0 && req.Input[n-1].Role == "user" && len(req.Tools) > 0:
		var parts []string
		for _, c := range req.Input[n-1].Content {
			if c.Type == "input_text" {
				parts = append(parts, c.Text)
			}
		}
		reply = s.turn(strings.Join(parts, "\n"))
	default:
		// A side request without tools (the task title): not a prompt.
		reply = Reply{Text: "Stub task"}
	}
	respID := s.nextID("resp_stub")
	usage := map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}
	e := startSSE(w, r)
	e.event("response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": respID, "object": "response", "status": "in_progress", "model": req.Model}})
	var item map[string]any // a function call
	switch {
	case reply.Command != "":
		callID := s.toolCall("call_stub", reply)
		name, args := req.shellCall(reply.Command)
		item = map[string]any{"type": "function_call", "id": "fc_" + callID, "call_id": callID,
			"name": name, "arguments": args, "status": "completed"}
	case reply.Tool != "":
		item, reply.Text = s.openaiMCP(&req, reply)
	}
	if item != nil {
		if !e.sleep(reply.Delay) {
			return
		}
		e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
		e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	} else {
		msgID := s.nextID("msg_stub")
		e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0,
			"item": map[string]any{"type": "message", "id": msgID, "role": "assistant", "status": "in_progress", "content": []any{}}})
		e.event("response.content_part.added", map[string]any{"type": "response.content_part.added", "item_id": msgID,
			"output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		for _, c := range chunks(reply.Text) {
			if !e.sleep(reply.Delay) {
				return
			}
			e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": msgID,
				"output_index": 0, "content_index": 0, "delta": c})
		}
		e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0,
			"item": map[string]any{"type": "message", "id": msgID, "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}}}})
	}
	e.event("response.completed", map[string]any{"type": "response.completed",
		"response": map[string]any{"id": respID, "object": "response", "status": "completed", "model": req.Model, "usage": usage}})
}
