package agentstub

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Gemini's generateContent API, as Gemini CLI calls it
// (/v1beta/models/<model>:<method>).

type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             string          `json:"text"`
			FunctionResponse json.RawMessage `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

func (s *Stub) gemini(w http.ResponseWriter, r *http.Request) {
	_, method, _ := strings.Cut(r.PathValue("call"), ":")
	var req geminiRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if method == "countTokens" {
		writeJSON(w, map[string]any{"totalTokens": 100})
		return
	}
	s.offer(req.toolNames())
	var reply Reply
	n := len(req.Contents)
	tools := 0
	for _, t := range req.Tools {
		tools += len(t.FunctionDeclarations)
	}
	switch {
	case method == "streamGenerateContent" && n > 0 && req.Contents[n-1].Role == "user" && hasFunctionResponse(req.Contents[n-1].Parts):
		var fr geminiFunctionResponse
		for _, p := range req.Contents[n-1].Parts {
			if len(p.FunctionResponse) > 0 {
				json.Unmarshal(p.FunctionResponse, &fr) //nolint:errcheck // no id: the default reply
			}
		}
		var ok bool
		if reply, ok = s.mcpResult(fr.ID, resultText(fr.Response), fr.isError()); !ok {
			reply = s.toolResult(fr.ID)
		}
	case method == "streamGenerateContent" && tools > 0 && n > 0 && req.Contents[n-1].Role == "user":
		var parts []string
		for _, p := range req.Contents[n-1].Parts {
			// Gemini CLI puts its <session_context> in a part of the
			// first prompt's message.
			if p.Text != "" && !strings.HasPrefix(p.Text, "<session_context>") {
				parts = append(parts, p.Text)
			}
		}
		reply = s.turn(strings.Join(parts, "\n"))
	default:
		// Side requests (next-speaker check, model routing, loop
		// detection) ask for JSON; one object answers them all.
		reply = Reply{Text: `{"reasoning":"stub","next_speaker":"user","model_choice":"flash","complexity_score":1}`}
	}
	usage := map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
	candidate := func(parts []map[string]any, finish string) map[string]any {
		c := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if finish != "" {
			c["finishReason"] = finish
		}
		return map[string]any{"candidates": []any{c}, "usageMetadata": usage, "modelVersion": "gemini-2.5-pro"}
	}
	if method != "streamGenerateContent" {
		writeJSON(w, candidate([]map[string]any{{"text": reply.Text}}, "STOP"))
		return
	}
	e := startSSE(w, r)
	if reply.Command != "" {
		id := s.toolCall("gemini_call_", reply)
		if !e.sleep(reply.Delay) {
			return
		}
		e.event("", candidate([]map[string]any{{"functionCall": map[string]any{"id": id, "name": "run_shell_command",
			"args": map[string]any{"command": reply.Command, "description": "Run a shell command"}}}}, "STOP"))
		return
	}
	if reply.Tool != "" {
		var call map[string]any
		if call, reply.Text = s.geminiMCP(&req, reply); call != nil {
			if !e.sleep(reply.Delay) {
				return
			}
			e.event("", candidate([]map[string]any{{"functionCall": call}}, "STOP"))
			return
		}
	}
	cs := chunks(reply.Text)
	for i, c := range cs {
		if !e.sleep(reply.Delay) {
			return
		}
		finish := ""
		if i == len(cs)-1 {
			finish = "STOP"
		}
		e.event("", candidate([]map[string]any{{"text": c}}, finish))
	}
}

func hasFunctionResponse(parts []struct {
	Text             string          `json:"text"`
	FunctionResponse json.RawMessage `json:"functionResponse"`
}) bool {
	for _, p := range parts {
		if len(p.FunctionResponse) > 0 {
			return true
		}
	}
	return false
}
