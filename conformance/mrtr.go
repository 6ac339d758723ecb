//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The multi round-trip fixtures (SEP-2322, the input-required-result-*
// scenarios): a call without the answers it needs returns an
// input_required result naming its questions, and the client calls again
// with the answers and the requestState echoed. Clients before
// 2026-07-28 are served by mcp-go, which asks them with the requests of
// their revision and calls the handler again.
//
// The questions are asked through gather, which keeps the answers of
// earlier rounds in a sealed requestState (state.go), asks again for
// what is still missing (an answer under a key it did not ask, or one
// that is not an answer: input-required-result-missing-input-response,
// -validate-input), ignores keys it did not ask (-ignore-extra-params)
// and refuses a requestState it did not seal with a JSON-RPC error
// (-tampered-state).

// gathered is the requestState of gather: which fixture asked and the
// answers given so far, by key.
type gathered struct {
	Kind    string                     `json:"kind"`
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
}

// ask is the input a call still needs: the requests and the state the
// client must echo.
type ask struct {
	requests mcp.InputRequests
	state    string
}

func (a *ask) toolResult() *mcp.CallToolResult {
	return &mcp.CallToolResult{Result: mcp.Result{ResultType: mcp.ResultTypeInputRequired},
		MultiRoundTripResult: mcp.MultiRoundTripResult{InputRequests: a.requests, RequestState: a.state}}
}

func (a *ask) promptResult() *mcp.GetPromptResult {
	return &mcp.GetPromptResult{Result: mcp.Result{ResultType: mcp.ResultTypeInputRequired},
		MultiRoundTripResult: mcp.MultiRoundTripResult{InputRequests: a.requests, RequestState: a.state}}
}

// gather returns the answers to requests once the client has given them
// all, in this round or an earlier one; until then it returns what to ask
// for. kind names the fixture in the state, so that one fixture's state
// is no answer to another.
func (f *fixtures) gather(kind string, p mcp.MultiRoundTripParams, requests mcp.InputRequests) (mcp.InputResponses, *ask, error) {
	st := gathered{Kind: kind, Answers: map[string]json.RawMessage{}}
	if p.RequestState != "" {
		var prev gathered
		if err := f.states.open(p.RequestState, &prev); err != nil {
			return nil, nil, err
		}
		if prev.Kind != kind {
			return nil, nil, fmt.Errorf("requestState was issued for another request (%s), not %s", prev.Kind, kind)
		}
		maps.Copy(st.Answers, prev.Answers)
	}
	for key := range requests {
		if r, ok := p.InputResponses[key]; ok {
			if b, err := json.Marshal(r); err == nil {
				st.Answers[key] = b
			}
		}
	}
	answers := mcp.InputResponses{}
	missing := mcp.InputRequests{}
	for key, req := range requests {
		var r mcp.InputResponse
		if b, ok := st.Answers[key]; ok && json.Unmarshal(b, &r) == nil && r.DecodeFor(req.Method) == nil && answered(r) {
			answers[key] = r
			continue
		}
		delete(st.Answers, key)
		missing[key] = req
	}
	if len(missing) > 0 {
		return nil, &ask{requests: missing, state: f.states.seal(st)}, nil
	}
	return answers, nil, nil
}

// answered reports whether r is an answer of its kind: an elicitation
// with an action, a sampling result with content, a roots list.
func answered(r mcp.InputResponse) bool {
	switch {
	case r.Elicitation != nil:
		switch r.Elicitation.Action {
		case mcp.ElicitationResponseActionAccept, mcp.ElicitationResponseActionDecline, mcp.ElicitationResponseActionCancel:
			return true
		}
		return false
	case r.Sampling != nil:
		return r.Sampling.Content != nil
	default:
		return r.Roots != nil
	}
}

// elicit is an elicitation request for one field.
func elicit(message, field, typ string) mcp.InputRequest {
	return mcp.NewElicitationInputRequest(mcp.ElicitationParams{Message: message, RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{field: map[string]any{"type": typ}}, "required": []string{field}}})
}

// sample is a sampling request for one user message.
func sample(text string, maxTokens int) mcp.InputRequest {
	return mcp.NewSamplingInputRequest(mcp.CreateMessageParams{MaxTokens: maxTokens,
		Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(text)}}})
}

// field is the value of field in an accepted elicitation, and whether
// there is one.
func field(r mcp.InputResponse, name string) (any, bool) {
	if r.Elicitation == nil || r.Elicitation.Action != mcp.ElicitationResponseActionAccept {
		return nil, false
	}
	content, _ := r.Elicitation.Content.(map[string]any)
	v, ok := content[name]
	return v, ok
}

// text is the text of a sampling answer.
func text(r mcp.InputResponse) string {
	if r.Sampling == nil {
		return ""
	}
	switch c := r.Sampling.Content.(type) {
	case map[string]any:
		s, _ := c["text"].(string)
		return s
	case mcp.TextContent:
		return c.Text
	}
	return ""
}

func (f *fixtures) mrtrTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool("test_input_required_result_elicitation",
			mcp.WithDescription("MRTR: returns InputRequiredResult with elicitation request")),
			Handler: f.greetAsked},
		{Tool: mcp.NewTool("test_input_required_result_sampling",
			mcp.WithDescription("MRTR: returns InputRequiredResult with sampling request")),
			Handler: f.asked("sampling", mcp.InputRequests{"capital_question": sample("What is the capital of France?", 100)},
				func(a mcp.InputResponses) string { return "Sampling result: " + text(a["capital_question"]) })},
		{Tool: mcp.NewTool("test_input_required_result_list_roots",
			mcp.WithDescription("MRTR: returns InputRequiredResult with roots/list request")),
			Handler: f.asked("roots", mcp.InputRequests{"client_roots": mcp.NewRootsInputRequest()},
				func(a mcp.InputResponses) string {
					return fmt.Sprintf("Found %d root(s)", len(a["client_roots"].Roots.Roots))
				})},
		{Tool: mcp.NewTool("test_input_required_result_request_state",
			mcp.WithDescription("MRTR: returns InputRequiredResult with requestState")),
			Handler: f.asked("request-state", mcp.InputRequests{"confirm": elicit("Please confirm", "ok", "boolean")},
				func(mcp.InputResponses) string { return "state-ok: requestState validated" })},
		{Tool: mcp.NewTool("test_input_required_result_multiple_inputs",
			mcp.WithDescription("MRTR: returns InputRequiredResult with multiple input requests")),
			Handler: f.asked("multiple-inputs", mcp.InputRequests{
				"user_name":    elicit("What is your name?", "name", "string"),
				"greeting":     sample("Generate a greeting", 50),
				"client_roots": mcp.NewRootsInputRequest(),
			}, func(a mcp.InputResponses) string {
				name, _ := field(a["user_name"], "name")
				return fmt.Sprintf("Name: %v; Greeting: %s; Roots: %d", name, text(a["greeting"]), len(a["client_roots"].Roots.Roots))
			})},
		{Tool: mcp.NewTool("test_input_required_result_multi_round",
			mcp.WithDescription("MRTR: multi-round InputRequiredResult workflow")),
			Handler: f.multiRound},
		{Tool: mcp.NewTool("test_input_required_result_tampered_state",
			mcp.WithDescription("MRTR: HMAC-signed requestState integrity test")),
			Handler: f.asked("tamper-test", mcp.InputRequests{"confirm": elicit("Please confirm", "ok", "boolean")},
				func(mcp.InputResponses) string { return "integrity-ok: state verified" })},
		{Tool: mcp.NewTool("test_input_required_result_capabilities",
			mcp.WithDescription("MRTR: respects client capabilities in inputRequests")),
			Handler: f.capabilities},
	}
}

// asked is the handler of a fixture that asks requests and then answers
// with done's text.
func (f *fixtures) asked(kind string, requests mcp.InputRequests, done func(mcp.InputResponses) string) server.ToolHandlerFunc {
	return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		answers, a, err := f.gather(kind, req.Params.MultiRoundTripParams, requests)
		switch {
		case err != nil:
			return nil, err
		case a != nil:
			return a.toolResult(), nil
		}
		return mcp.NewToolResultText(done(answers)), nil
	}
}

// greetAsked asks the user's name and greets them.
func (f *fixtures) greetAsked(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	answers, a, err := f.gather("elicitation", req.Params.MultiRoundTripParams,
		mcp.InputRequests{"user_name": elicit("What is your name?", "name", "string")})
	switch {
	case err != nil:
		return nil, err
	case a != nil:
		return a.toolResult(), nil
	}
	name, ok := field(answers["user_name"], "name")
	if !ok {
		return mcp.NewToolResultError("The user did not give a name."), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("Hello, %v!", name)), nil
}

// round is the requestState of test_input_required_result_multi_round.
type round struct {
	Round int    `json:"round"`
	Name  string `json:"name,omitempty"`
}

// multiRound asks one question per round: a name, then a colour; each
// round's state differs from the last.
func (f *fixtures) multiRound(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p := req.Params.MultiRoundTripParams
	var st round
	if p.RequestState != "" {
		if err := f.states.open(p.RequestState, &st); err != nil {
			return nil, err
		}
	}
	step := func(r round, key string, q mcp.InputRequest) (*mcp.CallToolResult, error) {
		return (&ask{requests: mcp.InputRequests{key: q}, state: f.states.seal(r)}).toolResult(), nil
	}
	answer := func(key, name string) (any, bool) {
		r, ok := p.InputResponses[key]
		if !ok || r.DecodeFor(mcp.MethodElicitationCreate) != nil {
			return nil, false
		}
		return field(r, name)
	}
	switch st.Round {
	case 1:
		if name, ok := answer("step1", "name"); ok {
			return step(round{Round: 2, Name: fmt.Sprint(name)}, "step2",
				elicit("Step 2: What is your favorite color?", "color", "string"))
		}
	case 2:
		if color, ok := answer("step2", "color"); ok {
			return mcp.NewToolResultText(fmt.Sprintf("Multi-round complete for %s who likes %v", st.Name, color)), nil
		}
		return step(st, "step2", elicit("Step 2: What is your favorite color?", "color", "string"))
	}
	return step(round{Round: 1}, "step1", elicit("Step 1: What is your name?", "name", "string"))
}

// capabilities asks only what the request's client capabilities allow:
// an elicitation if it declared elicitation, a sampling if sampling.
func (f *fixtures) capabilities(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	requests := mcp.InputRequests{}
	if c := clientCaps(ctx); c != nil {
		if c.Elicitation != nil {
			requests["elicit_input"] = elicit("Elicitation input", "value", "string")
		}
		if c.Sampling != nil {
			requests["sample_input"] = sample("Sample request", 50)
		}
	}
	if len(requests) == 0 {
		return mcp.NewToolResultText("No supported capabilities declared"), nil
	}
	answers, a, err := f.gather("capabilities", req.Params.MultiRoundTripParams, requests)
	switch {
	case err != nil:
		return nil, err
	case a != nil:
		return a.toolResult(), nil
	}
	return mcp.NewToolResultText("capabilities-ok: received " + strings.Join(slices.Sorted(maps.Keys(answers)), ",")), nil
}

// mrtrPrompt is test_input_required_result_prompt
// (input-required-result-non-tool-request): a prompt that asks for its
// context before it answers.
func (f *fixtures) mrtrPrompt() server.ServerPrompt {
	return server.ServerPrompt{
		Prompt: mcp.NewPrompt("test_input_required_result_prompt",
			mcp.WithPromptDescription("MRTR: prompt that requires elicitation input")),
		Handler: func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			answers, a, err := f.gather("prompt", req.Params.MultiRoundTripParams,
				mcp.InputRequests{"user_context": elicit("What context should the prompt use?", "context", "string")})
			switch {
			case err != nil:
				return nil, err
			case a != nil:
				return a.promptResult(), nil
			}
			topic, _ := field(answers["user_context"], "context")
			return mcp.NewGetPromptResult("", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(fmt.Sprintf("Prompt with context: %v", topic))),
			}), nil
		},
	}
}
