package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// submitSchema is submit_prompt's result.
var submitSchema = tooldef.Record(tField, []string{"result", "pane_id", "agent", "submitted_ms"}, nil)

// submitted is submit_prompt's result.
type submitted struct {
	Result string `json:"result"`
	PaneID string `json:"pane_id"`
	// Bracketed is whether the program asked for bracketed paste; nil when
	// tmux cannot tell (before 3.7).
	Bracketed *bool `json:"bracketed"`
	// Agent is the agent CLI the pane runs, as it was once the prompt was
	// submitted; nil for another program.
	Agent *AgentInfo `json:"agent"`
	// TakenMS is the time from the call to the text taken (the screen
	// settled after the paste), SubmittedMS to the submission seen.
	TakenMS     int64 `json:"taken_ms"`
	SubmittedMS int64 `json:"submitted_ms"`
	// Enters is how many times Enter was pressed (more than once when the
	// program took one as a new line).
	Enters int `json:"enters"`
}

// SubmitPrompt types text into an interactive program as one input,
// presses Enter once the program has taken it, and checks that the
// program took it as a submission (drive.Submission).
func SubmitPrompt(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("submit_prompt",
		"Submit text as one prompt to an agent CLI, REPL or shell; checks it was.",
		tooldef.Shell, submitSchema,
		paneTarget(mcp.WithString("text", mcp.Required()), pTimeout, pAllowAgent, pAllowAttended)...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		start := time.Now()
		text := strings.TrimRight(p.Str("text"), "\r\n")
		switch {
		case strings.TrimSpace(text) == "":
			return nil, tooldef.BadArg("text", "must not be empty")
		case len(text) > maxPaste:
			return nil, tooldef.BadArg("text", "at most %d bytes", maxPaste)
		}
		timeout, err := d.timeoutArg(p, 15)
		if err != nil {
			return nil, err
		}
		// The timeout bounds the steps of the submission (the pane's
		// lock and readiness, then the waits for the program); each
		// read and key has the time of a tmux call (waituntil.go).
		deadline := start.Add(timeout)
		wctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		tp, err := d.startTyping(wctx, p)
		if drive.PastDeadline(err, deadline) && ctx.Err() == nil {
			return nil, &toolError{class: "not_submitted",
				msg:  fmt.Sprintf("prompt not submitted: the pane was not ready for keys within %s; nothing was typed", timeout),
				hint: "submit_prompt again with a longer timeout"}
		}
		if err != nil {
			return nil, err
		}
		defer tp.unlock()
		s := drive.Submission{Srv: tp.srv, Pane: tp.pane, Text: text, Start: start, Timeout: timeout, Deadline: deadline,
			Panes: d.panes.Panes, Ceiling: d.ceiling()}
		if s.Agent, err = d.readyForPrompt(ctx, &s); err != nil {
			return nil, err
		}
		got, err := s.Run(ctx)
		if err != nil {
			return nil, err
		}
		id := tp.pane.ID
		msg := "Prompt submitted to pane " + string(id)
		if got.Enters > 1 {
			msg += fmt.Sprintf(" (Enter pressed %d times: the program took an Enter as a new line, which was taken back, or did not answer one)", got.Enters)
		}
		if strings.Contains(text, "\n") && got.Bracketed != nil && !*got.Bracketed {
			msg += " (line by line: the program did not ask for bracketed paste)"
		}
		out := submitted{Result: msg, PaneID: string(id), Bracketed: got.Bracketed, Enters: got.Enters,
			TakenMS: got.Taken.Milliseconds(), SubmittedMS: got.Done.Milliseconds()}
		if s.Agent != "" {
			out.Agent = &AgentInfo{Name: string(s.Agent), State: string(got.After.State), Question: got.After.Question}
		}
		return structured(out)
	})
}

// readyForPrompt returns the agent CLI in s's pane ("" for another
// program), and refuses a prompt the agent cannot take now: one that
// would answer its question, or be queued behind its turn, or go into a
// screen its rules do not explain (a dialog).
func (d Deps) readyForPrompt(ctx context.Context, s *drive.Submission) (agent.Name, error) {
	id := s.Pane.ID
	info, reading, err := d.readAgent(ctx, s.Srv, s.Pane)
	if err != nil {
		return "", err
	}
	if info != nil && reading.State == agent.Unknown && agent.HasScreenRules(agent.Name(info.Name)) {
		reading, _, err = drive.AwaitReadable(ctx, s.Srv, id, s.Deadline, func(ctx context.Context, pn tmux.Pane) (agent.Reading, bool, error) {
			var r agent.Reading
			info, r, err = d.readAgent(ctx, s.Srv, pn)
			return r, info != nil, err
		})
		if err != nil {
			return "", err
		}
	}
	if info == nil || reading.State == agent.Exited {
		return "", nil
	}
	name := agent.Name(info.Name)
	switch reading.State {
	case agent.AskingPermission:
		return "", &toolError{class: "asking_permission",
			msg:  fmt.Sprintf("%s in pane %s is asking a question; a prompt typed now would answer it:\n%s", info.Name, id, reading.Question),
			hint: "answer_permission answers it"}
	case agent.Working:
		return "", &toolError{class: "agent_working",
			msg:  fmt.Sprintf("%s in pane %s is still working on a turn; a prompt typed now would be queued or lost", info.Name, id),
			hint: "wait_for_agent waits for the turn to end"}
	case agent.Unknown:
		if agent.HasScreenRules(name) {
			return "", s.Failure(ctx, fmt.Sprintf("%s shows no input area it is known to draw (a dialog, or a version that draws differently); nothing was typed", info.Name), nil)
		}
	}
	return name, nil
}
