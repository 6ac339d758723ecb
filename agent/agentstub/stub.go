// Package agentstub lets tests drive the real agent CLIs (Claude Code,
// Codex CLI, Gemini CLI, installed from npm by scripts/agent-clis) in tmux
// panes without a real model or any network beyond loopback.
//
// Start serves a model stub on 127.0.0.1 that speaks, streamed (SSE), the
// Anthropic Messages API (Claude Code), the OpenAI Responses API (Codex)
// and Gemini's streamGenerateContent (Gemini CLI). Each user prompt gets a
// scripted reply: by default a fixed text that echoes the prompt ("reply
// to: <first 40 characters>"), optionally streamed slowly (SetDelay) or a
// request to run a shell command (Reply.Command), which makes the CLI ask
// for permission first, or a call of a tool of an MCP server the CLI runs
// (Reply.Tool), found under the name the CLI gives it. The stub records
// every prompt it receives, the tools each request offered (Offered), and
// each MCP tool call with the result the CLI sent back (Calls).
//
// Launch gives the environment and argv that start a CLI hermetically
// against the stub: home and config directories in t.TempDir(), a fake
// key, no updates, telemetry or other traffic, and the config that skips
// onboarding, login, trust and release-notes screens, so the CLI comes up
// at its input prompt, in the permission mode that asks before it runs a
// shell command. CLI finds the executables (scripts/agent-clis), and Run
// starts a Launch in a pane of a private tmux server.
package agentstub

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// EchoLen is how many characters of a prompt the default reply echoes.
const EchoLen = 40

// Reply is the model's answer to one user prompt.
type Reply struct {
	// Text is the streamed answer; empty means DefaultText(prompt).
	Text string
	// Delay is the pause before each streamed chunk; zero means the stub's
	// delay (SetDelay).
	Delay time.Duration
	// Command, when set, makes the answer a request to run this shell
	// command with the CLI's shell tool (the CLI asks for permission
	// first); once the tool's result comes back, the model answers with
	// Text (or "command done: <Command>").
	Command string
	// Tool, when set, makes the answer a call of an MCP tool with the
	// arguments Args: Tool is its name on its server (run_command), and
	// the stub calls the tool the request offers under that name as each
	// CLI prefixes it (mcptools.go). Calls records the call and the
	// result the CLI sends back; once that is back, the model answers
	// with Text (or "tool done: <Tool>") or Next.
	Tool string
	Args map[string]any
	// Next, when set, is the answer once Tool's result is back instead
	// of Text: another tool call, say.
	Next *Reply

	// searches, callIndex and searchResult mark the reply that follows
	// Claude Code's ToolSearch for the tool: the call of Calls' record
	// callIndex, after searches searches, the last of which answered
	// searchResult.
	searches     int
	callIndex    int
	searchResult string
}

// DefaultText is the reply to prompt when the script says nothing else:
// "reply to: " and the prompt's first EchoLen characters, on one line.
func DefaultText(prompt string) string {
	p := []rune(strings.Join(strings.Fields(prompt), " "))
	if len(p) > EchoLen {
		p = p[:EchoLen]
	}
	return "reply to: " + string(p)
}

// Request is one HTTP request the stub served, for debugging.
type Request struct {
	Method, Path string
	Body         string
}

// Stub is a model server on 127.0.0.1 for the agent CLIs.
type Stub struct {
	// URL is the server's base URL, http://127.0.0.1:port, without a path.
	URL string

	t   testing.TB
	srv *http.Server

	mu       sync.Mutex
	delay    time.Duration
	script   []Reply
	pending  map[string]Reply // by tool call id: the reply that follows a tool result
	prompts  []string
	requests []Request
	notify   chan struct{} // closed and replaced when a prompt or an MCP tool's result arrives
	seq      int

	calls      []ToolCall            // the MCP tool calls (Reply.Tool)
	mcpPending map[string]mcpPending // by tool call id: the MCP tool calls in flight
	offers     [][]string            // the tool names each request with tools offered
}

// Start serves a stub until the test ends.
func Start(t testing.TB) *Stub {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("agentstub: listen: %v", err)
	}
	s := &Stub{
		URL:     "http://" + ln.Addr().String(),
		t:       t,
		pending: map[string]Reply{},
		notify:  make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.anthropicMessages)
	mux.HandleFunc("POST /v1/messages/count_tokens", s.anthropicCountTokens)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("GET /v1/models/{id}", s.anthropicModel)
	mux.HandleFunc("POST /v1/responses", s.openaiResponses)
	mux.HandleFunc("POST /v1beta/models/{call}", s.gemini)
	mux.HandleFunc("/", s.other)
	s.srv = &http.Server{Handler: s.record(mux), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln) //nolint:errcheck // ErrServerClosed on cleanup
	t.Cleanup(func() {
		// Streams in progress end with the test; a CLI still connected
		// sees its connection close.
		s.srv.Close() //nolint:errcheck
	})
	return s
}

// SetDelay sets the pause before each streamed chunk of a reply (a reply
// streams in about ten chunks), so that a test sees the CLI working.
func (s *Stub) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Push queues replies for the next user prompts, in order; prompts beyond
// the queue get the default reply.
func (s *Stub) Push(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, r...)
}

// Prompts returns the user prompts received so far, in order: the full
// text of the last user message of each request that starts a turn.
func (s *Stub) Prompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts...)
}

// Requests returns every request served so far.
func (s *Stub) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// WaitPrompt waits up to timeout for the n-th prompt (from 1) and returns
// it; it fails the test at the deadline.
func (s *Stub) WaitPrompt(t testing.TB, n int, timeout time.Duration) string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		if len(s.prompts) >= n {
			p := s.prompts[n-1]
			s.mu.Unlock()
			return p
		}
		ch := s.notify
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("agentstub: no prompt #%d within %v; got %q; requests: %s", n, timeout, s.Prompts(), s.describeRequests())
			return ""
		}
	}
}

func (s *Stub) describeRequests() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		fmt.Fprintf(&b, "\n  %s %s", r.Method, r.Path)
		// A request's last message is what the CLI added to the
		// conversation (a prompt, a tool's result, a task's notice): the
		// place to look when the stub did not see what the screen shows.
		var body struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if json.Unmarshal([]byte(r.Body), &body) == nil && len(body.Messages) > 0 {
			last := string(body.Messages[len(body.Messages)-1])
			if len(last) > 1500 {
				last = last[:1500] + "..."
			}
			fmt.Fprintf(&b, "\n    last message: %s", last)
		}
	}
	return b.String()
}

// turn records a user prompt and returns the reply to it.
func (s *Stub) turn(prompt string) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prompts = append(s.prompts, prompt)
	close(s.notify)
	s.notify = make(chan struct{})
	var r Reply
	if len(s.script) > 0 {
		r = s.script[0]
		s.script = s.script[1:]
	}
	if r.Delay == 0 {
		r.Delay = s.delay
	}
	if r.Text == "" {
		if r.Command != "" {
			r.Text = "command done: " + r.Command
		} else if r.Tool != "" {
			r.Text = "tool done: " + r.Tool
		} else {
			r.Text = DefaultText(prompt)
		}
	}
	return r
}

// toolCall registers the reply that follows the result of a tool call and
// returns the call's id.
func (s *Stub) toolCall(prefix string, r Reply) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	id := fmt.Sprintf("%s%d", prefix, s.seq)
	s.pending[id] = r
	return id
}

// toolResult returns the reply that follows the result of tool call id.
func (s *Stub) toolResult(id string) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.pending[id]
	if !ok && len(s.pending) == 1 {
		// A CLI that renamed the call (its own ids): the only one open.
		for k, v := range s.pending {
			id, r, ok = k, v, true
		}
	}
	if !ok {
		return Reply{Text: "tool result received", Delay: s.delay}
	}
	delete(s.pending, id)
	return Reply{Text: r.Text, Delay: r.Delay}
}

func (s *Stub) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("%s%d", prefix, s.seq)
}

// record keeps each request (and its body, for the handlers to read
// again).
func (s *Stub) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		s.mu.Lock()
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.RequestURI(), Body: string(body)})
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// other answers what no handler knows: an empty JSON object, which most
// start-up probes (settings, feature flags) take as "nothing".
func (s *Stub) other(w http.ResponseWriter, r *http.Request) {
	s.t.Logf("agentstub: unhandled %s %s", r.Method, r.URL.RequestURI())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	io.WriteString(w, `{"error":{"type":"not_found_error","message":"agentstub: not served"}}`) //nolint:errcheck
}

// models answers both Anthropic's and OpenAI's model listing.
func (s *Stub) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{
		"object": "list",
		"data": []map[string]any{
			{"type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude Sonnet 4.5", "created_at": "2025-09-29T00:00:00Z", "object": "model", "owned_by": "stub"},
			{"type": "model", "id": "gpt-5-codex", "display_name": "gpt-5-codex", "created_at": "2025-09-15T00:00:00Z", "object": "model", "owned_by": "stub"},
		},
		"has_more": false,
		"first_id": "claude-sonnet-4-5",
		"last_id":  "gpt-5-codex",
		"models":   []any{},
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v) //nolint:errcheck // the client went away
}

// sse writes server-sent events, flushing each.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
	r *http.Request
}

func startSSE(w http.ResponseWriter, r *http.Request) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	e := &sse{w: w, f: f, r: r}
	e.flush()
	return e
}

func (e *sse) flush() {
	if e.f != nil {
		e.f.Flush()
	}
}

// event writes one event; name may be empty (data only).
func (e *sse) event(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(fmt.Sprintf("agentstub: marshal: %v", err))
	}
	bw := bufio.NewWriter(e.w)
	if name != "" {
		fmt.Fprintf(bw, "event: %s\n", name)
	}
	fmt.Fprintf(bw, "data: %s\n\n", b)
	bw.Flush() //nolint:errcheck
	e.flush()
}

// sleep pauses for d or until the client goes away; it reports whether
// the client is still there.
func (e *sse) sleep(d time.Duration) bool {
	if d <= 0 {
		return e.r.Context().Err() == nil
	}
	select {
	case <-time.After(d):
		return true
	case <-e.r.Context().Done():
		return false
	}
}

// chunks splits text into about ten pieces for streaming.
func chunks(text string) []string {
	rs := []rune(text)
	n := max(1, (len(rs)+9)/10)
	var out []string
	for len(rs) > 0 {
		k := min(n, len(rs))
		out = append(out, string(rs[:k]))
		rs = rs[k:]
	}
	return out
}
