package guard

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Asking the user to confirm, through MCP elicitation, and only when the
// client declared it can ask (form mode). The handler returns an
// input_required result carrying the question (SEP-2322) and is called
// again with the answer: clients on protocol 2026-07-28 and later retry
// themselves, and for earlier ones mcp-go sends elicitation/create and
// calls the handler again. Nothing has been done when the question goes
// out, so the second call repeats only the checks. The tool's arguments
// come from the model; the answer comes from the client, never from them.

// confirmKey names the one question in an input_required result.
const confirmKey = "confirm"

// AskUser is the error a handler returns to put a question to the user;
// the tools' handleRequest turns it into an input_required result
// (Result).
type AskUser struct {
	state    string
	question string
}

func (a *AskUser) Error() string { return "tools: waiting for the user to confirm" }

// Result is the input_required result that puts the question.
func (a *AskUser) Result() *mcp.CallToolResult {
	return server.NewInputRequestBuilder(a.state).Elicit(confirmKey, mcp.ElicitationParams{
		Message:         a.question,
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	}).ToolResult()
}

// nestedKey marks the context of a call that a batch tool makes: it has
// no round trip of its own to put a question in.
type nestedKey struct{}

// Nested marks ctx as a call a batch tool makes: a question is then
// refused, not asked.
func Nested(ctx context.Context) context.Context { return context.WithValue(ctx, nestedKey{}, true) }

// confirm asks the user whether a may go ahead, or refuses it: when the
// client cannot ask, inside a batch, or when the user declines.
func (g Guard) confirm(ctx context.Context, a SelfAct) error {
	hint := "Target another pane. To do it anyway, the user confirms when asked (an MCP client with elicitation), or starts tmux-mcp with --safety destructive --allow-own-pane"
	if a.Typing {
		hint += " (or --allow-self-input)"
	}
	hint += "."
	switch {
	case !clientElicits(ctx):
		return &Error{Msg: a.Refusal, Class: "refused", Hint: hint}
	case ctx.Value(nestedKey{}) != nil:
		return &Error{Msg: a.Refusal, Class: "refused",
			Hint: "Call " + g.toolName(ctx) + " on its own, not in a batch: the user is then asked to confirm."}
	}
	req := g.Request(ctx)
	if req.Params.RequestState == a.Ask {
		if r := server.ElicitationResponse(req.Params.InputResponses, confirmKey); r != nil {
			if r.Action == mcp.ElicitationResponseActionAccept {
				return nil
			}
			how := "declined"
			if r.Action != mcp.ElicitationResponseActionDecline {
				how = "cancelled"
			}
			return &Error{Msg: a.Refusal + " The user " + how + " when asked.", Class: "refused",
				Hint: "Target another pane."}
		}
	}
	return &AskUser{state: a.Ask, question: "tmux-mcp: " + a.Ask}
}

// clientElicits reports whether the client of this call declared that it
// can ask its user a question (elicitation in form mode): in the request
// on protocol 2026-07-28 and later, else at initialize.
func clientElicits(ctx context.Context) bool {
	var caps *mcp.ClientCapabilities
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		caps = info.ClientCapabilities
	} else {
		s := server.ClientSessionFromContext(ctx)
		if _, ok := s.(server.SessionWithElicitation); !ok {
			return false
		}
		if withInfo, ok := s.(server.SessionWithClientInfo); ok {
			c := withInfo.GetClientCapabilities()
			caps = &c
		}
	}
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	// An empty elicitation capability means form mode (2025-06-18).
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// toolName is the name of the tool being called.
func (g Guard) toolName(ctx context.Context) string {
	if n := g.Request(ctx).Params.Name; n != "" {
		return n
	}
	return "this tool"
}
