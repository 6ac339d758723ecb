package guard

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestAllowSelf: the destructive tier with --allow-own-pane lets every
// action on the caller's pane through, --allow-self-input typing only;
// below it, or without the flags, a client that cannot be asked gets the
// refusal and the way around it.
func TestAllowSelf(t *testing.T) {
	typing := SelfAct{Refusal: RefuseSelfInput, Typing: true, Ask: "type?"}
	kill := SelfAct{Refusal: RefuseWindow, Ask: "kill?"}
	const (
		hint       = "Target another pane. To do it anyway, the user confirms when asked (an MCP client with elicitation), or starts tmux-mcp with --safety destructive --allow-own-pane."
		typingHint = "Target another pane. To do it anyway, the user confirms when asked (an MCP client with elicitation), or starts tmux-mcp with --safety destructive --allow-own-pane (or --allow-self-input)."
	)
	for _, tt := range []struct {
		name string
		g    Guard
		a    SelfAct
		hint string // "" when allowed
	}{
		{"destructive, allow-own-pane, typing", Guard{Destructive: true, AllowOwnPane: true}, typing, ""},
		{"destructive, allow-own-pane, kill", Guard{Destructive: true, AllowOwnPane: true}, kill, ""},
		{"destructive, allow-self-input, typing", Guard{Destructive: true, AllowSelfInput: true}, typing, ""},
		{"destructive, allow-self-input, kill", Guard{Destructive: true, AllowSelfInput: true}, kill, hint},
		{"mutating, allow-own-pane, typing", Guard{AllowOwnPane: true}, typing, typingHint},
		{"destructive, no flag", Guard{Destructive: true}, kill, hint},
	} {
		err := tt.g.AllowSelf(context.Background(), tt.a)
		if tt.hint == "" {
			if err != nil {
				t.Errorf("%s: %v, want allowed", tt.name, err)
			}
			continue
		}
		var ge *Error
		if !errors.As(err, &ge) || ge.Msg != tt.a.Refusal || ge.Class != "refused" || ge.Hint != tt.hint {
			t.Errorf("%s: %#v, want %q refused with hint %q", tt.name, err, tt.a.Refusal, tt.hint)
		}
	}
}

// TestToolName: the question names the tool being called, or "this tool".
func TestToolName(t *testing.T) {
	var req mcp.CallToolRequest
	g := Guard{Request: func(context.Context) mcp.CallToolRequest { return req }}
	if got := g.toolName(context.Background()); got != "this tool" {
		t.Errorf("no request: toolName = %q", got)
	}
	req.Params.Name = "send_keys"
	if got := g.toolName(context.Background()); got != "send_keys" {
		t.Errorf("toolName = %q, want send_keys", got)
	}
}

// TestAskUser: the question goes out as an input_required result, and
// the error says what the call waits for.
func TestAskUser(t *testing.T) {
	a := &AskUser{state: "send_keys would type into pane %1", question: "tmux-mcp: send_keys would type into pane %1"}
	if got := a.Error(); got != "tools: waiting for the user to confirm" {
		t.Errorf("Error() = %q", got)
	}
	if a.Result() == nil {
		t.Error("Result() = nil")
	}
}
