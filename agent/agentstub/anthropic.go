package agentstub

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Anthropic Messages API, as Claude Code calls it.

type anthropicRequest struct {
	Model    string             `json:"model"`
	Stream   bool               `json:"stream"`
	Messages []anthropicMessage `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`  // a tool_result's
	IsError   bool            `json:"is_error"` // a tool_result's
}

// blocks reads a message's content: a string or a list of blocks.
func anthropicBlocks(raw json.RawMessage) []anthropicBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}
	}
	var bs []anthropicBlock
	json.Unmarshal(raw, &bs) //nolint:errcheck // no blocks then
	return bs
}

// userText is a user message's own text: its text blocks less the
// <system-reminder> blocks Claude Code adds.
func userText(bs []anthropicBlock) string {
	var parts []string
	for _, b := range bs {
		if b.Type != "text" || strings.HasPrefix(strings.TrimSpace(b.Text), "<system-reminder>") {
			continue
		}
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

func (s *Stub) anthropicCountTokens(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{"input_tokens": 100})
}

func (s *Stub) anthropicModel(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{"type": "model", "id": r.PathValue("id"), "display_name": r.PathValue("id"), "created_at": "2025-09-29T00:00:00Z"})
}

func (s *Stub) anthropicMessages(w http.ResponseWriter, r *http.Request) {
	var req anthropicRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.offer(anthropicNames(&req))
	s.anthropicTasks(&req)
	// The last user message, when nothing but system messages (Claude
	// Code appends one with the environment) follows it.
	var last []anthropicBlock
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role != "system" {
			if m.Role == "user" {
				last = anthropicBlocks(m.Content)
			}
			break
		}
	}
	var reply Reply
	switch {
	case hasToolResult(last):
		for _, b := range last {
			if b.Type != "tool_result" {
				continue
			}
			if r, ok := s.mcpResult(b.ToolUseID, resultText(b.Content), b.IsError); ok {
				reply = r
			} else {
				reply = s.toolResult(b.ToolUseID)
			}
		}
	case len(req.Tools) > 0 && last != nil:
		reply = s.turn(userText(last))
	default:
		// A side request without tools (a title, a topic check, the quota
		// probe): a short answer, not a prompt.
		reply = Reply{Text: "stub"}
	}
	// use is the tool_use block of a reply that calls a tool.
	var use map[string]any
	switch {
	case reply.Command != "":
		use = anthropicToolUse(s.toolCall("toolu_stub", reply), reply.Command)
	case reply.Tool != "":
		use, reply.Text = s.anthropicMCP(&req, reply)
	}
	model := req.Model
	if model == "" {
		model = "claude-sonnet-4-5"
	}
	msgID := s.nextID("msg_stub")
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		content := []map[string]any{{"type": "text", "text": reply.Text}}
		stop := "end_turn"
		if use != nil {
			content = []map[string]any{use}
			stop = "tool_use"
		}
		writeJSON(w, map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	e := startSSE(w, r)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	e.event("ping", map[string]any{"type": "ping"})
	stop := "end_turn"
	if use != nil {
		stop = "tool_use"
		tu := map[string]any{}
		for k, v := range use {
			tu[k] = v
		}
		input := mustJSON(tu["input"])
		tu["input"] = map[string]any{}
		if !e.sleep(reply.Delay) {
			return
		}
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": tu})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": input}})
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	} else {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for _, c := range chunks(reply.Text) {
			if !e.sleep(reply.Delay) {
				return
			}
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": c}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	}
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicToolUse is a Bash tool_use block running command.
func anthropicToolUse(id, command string) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": "Bash",
		"input": map[string]any{"command": command, "description": "Run a shell command"}}
}

func hasToolResult(bs []anthropicBlock) bool {
	for _, b := range bs {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
