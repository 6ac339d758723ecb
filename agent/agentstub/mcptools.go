package agentstub

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// MCP tools: a reply that calls a tool of an MCP server the CLI runs
// (Reply.Tool), and the record of each such call and of what the CLI sent
// back. Each CLI offers an MCP server's tools to the model under names of
// its own:
//
//   - Claude Code: mcp__<server>__<tool> (mcp__tmux-mcp__run_command). In
//     -p mode they are deferred: only named in a system message, to be
//     loaded with its ToolSearch tool first ("select:<name>"), which the
//     stub then calls, as a model does.
//   - Codex: a tool of type "namespace" named mcp__<server, _ for ->, whose
//     tools carry the server's own names (mcp__tmux_mcp / run_command); a
//     call names both. The stub records them as namespace__tool.
//   - Gemini CLI: mcp_<server>_<tool> (mcp_tmux-mcp_run_command).

// ToolCall is one call of an MCP tool the stub made (Reply.Tool) and what
// came of it.
type ToolCall struct {
	// Tool is the tool's name on its server (run_command).
	Tool string
	// Name is the name the stub called it by, as the CLI offered it
	// (mcp__tmux-mcp__run_command); empty when no offered tool had the
	// name Tool: the model answered with a text saying so instead.
	Name string
	// Args are the call's arguments.
	Args map[string]any
	// Offered are the tool names the request the call answered offered.
	Offered []string
	// Searched says the CLI had only named the tool (Claude Code's
	// deferred tools), and the stub loaded it with ToolSearch first.
	Searched bool
	// Done says the call is over: its result came back (for a call that
	// became a background task, in the task's notification), or it could
	// not be made (Name empty).
	Done bool
	// Result is the result as the CLI sent it back to the model: its text
	// (the text parts, joined by newlines; a form without text parts as
	// its JSON).
	Result string
	// IsError says the CLI sent the result back as an error (Claude
	// Code's is_error, Gemini CLI's error response; Codex has no such
	// mark).
	IsError bool
	// Task is the CLI's id of the background task the call became
	// (Claude Code's, for a call the server answered with a task): the
	// call is over when the task's notification brings its result.
	Task string
}

// mcpPending is a call in flight: the index of its ToolCall and, for
// Claude's ToolSearch step, the reply that makes the real call.
type mcpPending struct {
	index  int
	search bool
	reply  Reply
}

// toolNotOffered is the reply text when no offered tool has the name.
func toolNotOffered(tool string, offered []string) string {
	return fmt.Sprintf("agentstub: no tool %s among the %d tools offered", tool, len(offered))
}

// Calls returns the MCP tool calls made so far (Reply.Tool), in order.
func (s *Stub) Calls() []ToolCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ToolCall, len(s.calls))
	copy(out, s.calls)
	return out
}

// Offered returns the tool names of every request that offered tools, in
// order, as the CLI named them (Claude Code's deferred tools included).
func (s *Stub) Offered() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.offers...)
}

// WaitCall waits up to timeout until the n-th MCP tool call (from 1) is
// over (Done) and returns it; it fails the test at the deadline.
func (s *Stub) WaitCall(t testing.TB, n int, timeout time.Duration) ToolCall {
	t.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		if len(s.calls) >= n && s.calls[n-1].Done {
			c := s.calls[n-1]
			s.mu.Unlock()
			return c
		}
		ch := s.notify
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("agentstub: MCP tool call #%d not over within %v; calls: %+v; prompts: %q; requests: %s",
				n, timeout, s.Calls(), s.Prompts(), s.describeRequests())
			return ToolCall{}
		}
	}
}

// wake tells the waiters something changed; s.mu is held.
func (s *Stub) wake() {
	close(s.notify)
	s.notify = make(chan struct{})
}

// offer records the tool names a request offered.
func (s *Stub) offer(names []string) {
	if len(names) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offers = append(s.offers, names)
}

// serverPrefix matches what the CLIs put before a server's tool names:
// mcp__<server>__ (Claude Code, and Codex's namespaces as the stub
// records them) and mcp_<server>_ (Gemini CLI; a server name without _).
var serverPrefix = regexp.MustCompile(`^mcp__.+__$|^mcp_[^_]+_$`)

// findTool is the offered name for the server's tool: the name itself,
// else a server's prefix and the name.
func findTool(offered []string, tool string) string {
	var found []string
	for _, n := range offered {
		if n == tool {
			return n
		}
		if p, ok := strings.CutSuffix(n, tool); ok && serverPrefix.MatchString(p) {
			found = append(found, n)
		}
	}
	sort.Strings(found)
	if len(found) == 0 {
		return ""
	}
	return found[0]
}

// outCall is the tool call a reply makes: Name empty when none (Text then
// says why).
type outCall struct {
	ID, Name string
	Args     map[string]any
	Text     string
}

// maxSearches bounds the ToolSearch calls the stub makes for one call.
// While a server connects, Claude Code's ToolSearch waits for it some
// seconds before it answers that it still connects; a server that fails
// to connect in time is no longer named so, which ends the searches
// before this bound.
const maxSearches = 10

// callMCP starts the call of r.Tool among offered: it records the call
// (or, for the reply that follows a ToolSearch, updates its record) and
// returns what to send. loaded says whether an offered name can be called
// as it is (false for Claude Code's deferred tools, which are loaded with
// ToolSearch first); nil means every one can. connecting says the CLI
// still connects MCP servers whose tools the request does not name yet
// (Claude Code, which asks the model to search for them): the stub then
// searches by the tool's name, as a model does, and again while the
// search says so, up to maxSearches.
func (s *Stub) callMCP(prefix string, r Reply, offered []string, loaded func(name string) bool, connecting bool) outCall {
	name := findTool(offered, r.Tool)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mcpPending == nil {
		s.mcpPending = map[string]mcpPending{}
	}
	i := r.callIndex
	if r.searches == 0 {
		s.calls = append(s.calls, ToolCall{Tool: r.Tool, Args: r.Args})
		i = len(s.calls) - 1
	}
	s.calls[i].Name, s.calls[i].Offered = name, offered
	var query string
	switch {
	case name != "" && (loaded == nil || loaded(name)):
		return s.startCall(prefix, i, name, r)
	case r.searches == maxSearches:
	case name != "":
		query = "select:" + name
	case connecting:
		query = r.Tool
	}
	if query == "" {
		s.calls[i].Name, s.calls[i].Done = "", true
		s.wake()
		return outCall{Text: toolNotOffered(r.Tool, offered)}
	}
	s.calls[i].Searched = true
	s.seq++
	id := fmt.Sprintf("%s%d", prefix, s.seq)
	r.searches++
	r.callIndex = i
	s.mcpPending[id] = mcpPending{index: i, search: true, reply: r}
	return outCall{ID: id, Name: "ToolSearch", Args: map[string]any{"query": query, "max_results": 5}}
}

// startCall registers call i as in flight; s.mu is held.
func (s *Stub) startCall(prefix string, i int, name string, r Reply) outCall {
	s.seq++
	id := fmt.Sprintf("%s%d", prefix, s.seq)
	s.mcpPending[id] = mcpPending{index: i, reply: r}
	args := r.Args
	if args == nil {
		args = map[string]any{}
	}
	return outCall{ID: id, Name: name, Args: args}
}

// mcpResult takes the result of tool call id, when it is one of callMCP's:
// it records it and returns the reply that follows (for ToolSearch's
// result, the call of the tool it loaded); ok is false for another call.
func (s *Stub) mcpResult(id, result string, isError bool) (reply Reply, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.mcpPending[id]
	if !ok && len(s.mcpPending) == 1 && len(s.pending) == 0 {
		// A CLI that renamed the call (its own ids): the only one open.
		for k, v := range s.mcpPending {
			id, p, ok = k, v, true
		}
	}
	if !ok {
		return Reply{}, false
	}
	delete(s.mcpPending, id)
	if p.search {
		p.reply.searchResult = result
		return p.reply, true
	}
	c := &s.calls[p.index]
	if c.Task = backgroundTask(result); c.Task == "" {
		c.Done, c.Result, c.IsError = true, result, isError
	}
	s.wake()
	r := Reply{Text: p.reply.Text, Delay: p.reply.Delay}
	if p.reply.Next != nil {
		r = *p.reply.Next
		if r.Text == "" && r.Tool != "" {
			r.Text = "tool done: " + r.Tool
		}
	}
	if r.Text == "" {
		r.Text = "tool done: " + p.reply.Tool
	}
	if r.Delay == 0 {
		r.Delay = s.delay
	}
	return r, true
}

// taskOver ends the call that became the background task id, with the
// result its notification brought.
func (s *Stub) taskOver(id, result string, isError bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.calls {
		if c := &s.calls[i]; c.Task == id && !c.Done {
			c.Done, c.Result, c.IsError = true, result, isError
			s.wake()
		}
	}
}

// resultText is the text of a tool result as a CLI sends it: a string, a
// list of parts with text (Anthropic's blocks, OpenAI's input_text), or
// an object (Gemini's response) whose text parts are taken from its
// output, content or error; anything else as its JSON.
func resultText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var texts []string
		for _, p := range parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		if len(texts) > 0 {
			return strings.Join(texts, "\n")
		}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		for _, k := range []string{"output", "content", "error"} {
			if v, ok := obj[k]; ok {
				if t := resultText(v); t != "" {
					return t
				}
			}
		}
	}
	return string(raw)
}
