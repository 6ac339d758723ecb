package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestReadmeClientsDriveTmux sets tmux-mcp up in each of the real Claude
// Code, Codex CLI and Gemini CLI (scripts/agent-clis, each against the
// model stub) with the README's own lines (readmeclients_test.go): its
// "with settings" `mcp add` line with the local binary, the test's server
// settings added as further settings, Codex's config.toml line and
// Gemini's folder trust. Then it runs the README's headless line, in
// which the model calls run_command and then send_keys, each on a pane of
// the test's tmux server. Both must run: their results come back to the
// model, run_command's with the command's output, and the panes show the
// commands' output. Each client runs in a session too (its terminal
// interface in a pane), set up as the README says for one (Claude Code's
// allow rule, Codex's lines of protocol 2026-07-28): no question is
// asked, and the tools run. There run_command outlasts half a second:
// Claude Code's session declares the tasks extension and gets it back as
// a task, whose notification brings the output; Codex on 2026-07-28 does
// not (its calls on 2026-07-28, as tmux-mcp's trace says).
//
// The lines do not depend on tmux's version: the test runs on the tmux
// tests run by default and skips on the others a matrix picks with
// TMUX_MCP_TEST_TMUX, so that make ci runs the CLIs once.
func TestReadmeClientsDriveTmux(t *testing.T) {
	if v := os.Getenv(tmuxtest.BinaryEnv); v != "" {
		t.Skipf("%s=%s: the client lines do not depend on tmux's version, and run on the default tmux only", tmuxtest.BinaryEnv, v)
	}
	docs := readmeClients(t)
	bin := buildBinary(t)
	for _, name := range []string{agentstub.Claude, agentstub.Codex, agentstub.Gemini} {
		t.Run(name+" headless", func(t *testing.T) {
			t.Parallel()
			c := newClientRun(t, name, docs[name], bin)
			c.run(withVars(localBinary(c.doc.settings), c.vars)...)
			c.configure()
			c.stub.Push(c.script(false))
			out := c.run(c.doc.headless...)
			if want := "tool done: send_keys"; !strings.Contains(out, want) {
				t.Errorf("%s's output does not end the turn with the model's answer %q", name, want)
			}
			if got := c.stub.WaitPrompt(t, 1, time.Minute); got != c.doc.headless[2] {
				t.Errorf("the model got the prompt %q, want the README's %q", got, c.doc.headless[2])
			}
			c.checkCalls()
			if p := c.protocol(false); p != "" {
				t.Logf("%s called on protocol %s", name, p)
			}
		})
	}
	for _, s := range clientSessions {
		t.Run(s.name+" session", func(t *testing.T) {
			t.Parallel()
			c := newClientRun(t, s.name, docs[s.name], bin)
			s.setup(c)
			c.stub.Push(c.script(true))
			prompt := c.doc.headless[2]
			p := agentstub.Run(t, c.launch)
			pid, err := strconv.Atoi(p.PID())
			if err != nil {
				t.Fatal(err)
			}
			tmuxtest.Reap(t, pid)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("%s's screen at the end:\n%s", s.name, p.Capture())
				}
			})
			p.WaitText(s.idle, time.Minute)
			// A session lists the server's tools while it waits for
			// a prompt: once it has, its first turn names them.
			c.waitListed()
			p.Paste(prompt)
			p.WaitText(prompt, 10*time.Second)
			submitPasted(t, p, c.stub, agent.Name(s.name))
			c.stub.WaitPrompt(t, 1, 30*time.Second)
			p.WaitScreen("the tools' calls over, without a question", 2*time.Minute, func(screen string) bool {
				if strings.Contains(screen, s.question) {
					t.Fatalf("%s asks before a tool of tmux-mcp:\n%s", s.name, screen)
				}
				calls := c.stub.Calls()
				return len(calls) == 2 && calls[1].Done
			})
			if calls := c.checkCalls(); (calls[0].Task != "") != s.task {
				t.Errorf("%s made run_command a background task: %t, want %t", s.name, calls[0].Task != "", s.task)
			}
			if s.protocol != "" {
				if got := c.protocol(true); got != s.protocol {
					t.Errorf("%s called tmux-mcp's tools on protocol %q, want %s (the README's opt-in)", s.name, got, s.protocol)
				}
			}
		})
	}
}

// submitPasted presses Enter under the prompt pasted into the CLI of
// session p, as a person at it does: once the CLI has drawn the paste and
// stopped, and, where it took the Enter for a new line (the input box grew
// by an empty row), after a Backspace that takes the new line back. Gemini
// CLI takes an Enter for a new line within 40 ms of a paste by its own
// clock (a timer clears its "recent paste" state), and a busy machine
// delays that timer past a still screen (make ci once, beside the race
// suite); submit_prompt does the same for the same reason.
func submitPasted(t *testing.T, p *agentstub.Pane, stub *agentstub.Stub, name agent.Name) {
	t.Helper()
	read := func(screen string) agent.Reading { return agent.Read(name, strings.Split(screen, "\n")) }
	for enters := 1; ; enters++ {
		before := read(p.WaitStill("the prompt typed", 300*time.Millisecond, 10*time.Second))
		p.Keys("Enter")
		newline := false
		p.WaitScreen("the prompt submitted, or the Enter taken as a new line", 30*time.Second, func(screen string) bool {
			if len(stub.Prompts()) > 0 {
				return true
			}
			r := read(screen)
			newline = before.InputRows > 0 && r.InputKnown && r.Input == before.Input &&
				r.InputRows == before.InputRows+1 && r.InputLastBlank
			return newline
		})
		if !newline {
			return
		}
		if enters == 3 {
			t.Fatalf("%s took Enter for a new line %d times", name, enters)
		}
		p.Keys("BSpace")
		p.WaitScreen("the new line taken back", 10*time.Second, func(screen string) bool {
			return read(screen).InputRows == before.InputRows
		})
	}
}

// clientSessions are the clients run in a session (the CLI's terminal
// interface in a pane), each set up as the README says for a session.
var clientSessions = []struct {
	name string
	// setup does the README's lines for a session.
	setup func(c *clientRun)
	// idle is on the screen when the CLI waits for a prompt; question is a
	// line of its question before a call of an MCP tool.
	idle, question string
	// protocol is the protocol version the calls must be on ("": any).
	protocol string
	// task says the session declares the tasks extension: run_command,
	// which outlasts half a second, becomes a task in the background,
	// and its result comes in the task's notification.
	task bool
}{
	{
		// The "with settings" line and the allow rule in the project's
		// settings.
		name: agentstub.Claude,
		setup: func(c *clientRun) {
			c.run(withVars(localBinary(c.doc.settings), c.vars)...)
			c.allowClaude()
		},
		idle: "? for shortcuts", question: "Do you want to proceed?", task: true,
	},
	{
		// The lines of protocol 2026-07-28 and the approval line.
		name: agentstub.Codex,
		setup: func(c *clientRun) {
			for _, line := range c.doc.optIn {
				if slices.Contains(line, "add") {
					line = withVars(localBinary(line), c.vars)
				}
				c.run(line...)
			}
			c.configure()
		},
		idle: "Ask Codex to do anything", question: "MCP server to run tool", protocol: "2026-07-28",
	},
	{
		// The "with settings" line (--trust) and the folder's trust.
		name: agentstub.Gemini,
		setup: func(c *clientRun) {
			c.run(withVars(localBinary(c.doc.settings), c.vars)...)
			c.configure()
		},
		// Its prompt typed, like the others'. Not as `-i PROMPT`: under
		// load Gemini CLI 0.61.0 once never submitted that (no request in
		// 30 s, the input box empty, its MCP server up); it submits it
		// from a React effect that runs again only when one of its inputs
		// changes, a race inside the CLI.
		idle: "Type your message", question: "Allow execution of MCP tool",
	},
}

// clientRun is one client set up against a stub and a tmux server of the
// test's own.
type clientRun struct {
	t      *testing.T
	name   string
	doc    clientDoc
	exe    string
	stub   *agentstub.Stub
	launch agentstub.Launch
	tm     *tmuxtest.Server
	pane   string   // run_command's
	keys   string   // send_keys' pane
	trace  string   // tmux-mcp's trace file
	vars   []string // tmux-mcp's settings: the test's tmux server, its trace
}

// newClientRun starts a stub, the client's hermetic home (agentstub's
// Launch, with the binary's directory first on PATH: the README's local
// binary) and a tmux server with one plain sh pane.
func newClientRun(t *testing.T, name string, doc clientDoc, bin string) *clientRun {
	t.Helper()
	if filepath.Base(bin) != "tmux-mcp" {
		t.Fatalf("the binary %s is not named tmux-mcp, the README's local binary", bin)
	}
	c := &clientRun{t: t, name: name, doc: doc, exe: agentstub.CLI(t, name), stub: agentstub.Start(t)}
	c.launch = c.stub.Launch(t, name, c.exe)
	for i, kv := range c.launch.Env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			c.launch.Env[i] = "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + p
		}
	}
	c.tm = tmuxtest.New(t)
	c.tm.Start("main")
	c.pane = c.tm.MustTmux("display-message", "-p", "-t", "=main:", "#{pane_id}")
	c.tm.Start("keys")
	c.keys = c.tm.MustTmux("display-message", "-p", "-t", "=keys:", "#{pane_id}")
	c.trace = filepath.Join(t.TempDir(), "spans.jsonl")
	c.vars = []string{
		"TMUX_MCP_SOCKET_PATH=" + c.tm.Socket,
		"TMUX_MCP_TMUX_BIN=" + tmuxtest.Binary(t),
		"TMUX_MCP_TMUX_CONFIG=/dev/null",
		"TMUX_MCP_JOURNAL=" + filepath.Join(c.tm.Dir, "journal.db"),
		"TMUX_MCP_TRACE_FILE=" + c.trace,
		"OTEL_BSP_SCHEDULE_DELAY=100",
	}
	return c
}

// run runs a README line, the client's executable for its first word, in
// the project directory; a failure fails the test.
func (c *clientRun) run(words ...string) string {
	c.t.Helper()
	if len(words) == 0 || words[0] != c.name {
		c.t.Fatalf("README line %q does not run %s", words, c.name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.exe, words[1:]...)
	cmd.Dir, cmd.Env = c.launch.Dir, c.launch.Env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	c.t.Logf("%s (%.1fs):\n%s", strings.Join(words, " "), time.Since(start).Seconds(), out)
	if err != nil {
		c.t.Fatalf("%s: %v", strings.Join(words, " "), err)
	}
	return string(out)
}

// configure does what the README says besides the `mcp add` line: Codex's
// config.toml line `codex mcp add` cannot write, a project
// codex exec accepts (a git repository); Gemini's folder trust, with the
// trust agentstub's Launch gives it for every run taken away.
func (c *clientRun) configure() {
	c.t.Helper()
	switch c.name {
	case agentstub.Codex:
		path := filepath.Join(c.launch.Home, ".codex", "config.toml")
		b, err := os.ReadFile(path)
		if err != nil {
			c.t.Fatal(err)
		}
		merged, err := mergeTable(string(b), c.doc.toml, "default_tools_approval_mode")
		if err != nil {
			c.t.Fatalf("README's config.toml table: %v", err)
		}
		if err := os.WriteFile(path, []byte(merged), 0o600); err != nil {
			c.t.Fatal(err)
		}
		c.t.Logf("config.toml:\n%s", merged)
		if out, err := exec.Command("git", "init", "-q", c.launch.Dir).CombinedOutput(); err != nil {
			c.t.Fatalf("git init: %v\n%s", err, out)
		}
	case agentstub.Gemini:
		c.launch.Env = slices.DeleteFunc(c.launch.Env, func(kv string) bool { return strings.HasPrefix(kv, "GEMINI_CLI_TRUST_WORKSPACE=") })
		dir := filepath.Join(c.launch.Home, ".gemini")
		var settings map[string]any
		readJSONFile(c.t, filepath.Join(dir, "settings.json"), &settings)
		if sec, ok := settings["security"].(map[string]any); ok {
			delete(sec, "folderTrust") // on, its default
		}
		writeJSONFile(c.t, filepath.Join(dir, "settings.json"), settings)
		quoted, _ := json.Marshal(c.launch.Dir)
		trust := strings.Replace(c.doc.trustFolder, `"/path/to/project"`, string(quoted), 1)
		if err := os.WriteFile(filepath.Join(dir, "trustedFolders.json"), []byte(trust), 0o600); err != nil {
			c.t.Fatal(err)
		}
	}
}

// allowClaude writes the README's allow rule for Claude Code into the
// project's .claude/settings.json.
func (c *clientRun) allowClaude() {
	c.t.Helper()
	path := filepath.Join(c.launch.Dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(c.doc.allow), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// script is the model's turn: run_command, then send_keys, then a text.
// The commands compute their output, so that it shows only when they ran.
// A slow run_command outlasts the half second after which tmux-mcp
// answers a client that declared the tasks extension with a task. Each
// tool has a pane of its own: send_keys comes while a task still runs.
func (c *clientRun) script(slow bool) agentstub.Reply {
	command := "echo ran-$((6*7))"
	if slow {
		command = "sleep 1; " + command
	}
	return agentstub.Reply{
		Tool: "run_command", Args: map[string]any{"pane_id": c.pane, "command": command},
		Next: &agentstub.Reply{Tool: "send_keys", Args: map[string]any{"pane_id": c.keys, "keys": "echo sent-$((6*7))"}},
	}
}

// checkCalls checks the two calls: offered under the client's name for
// them, run (their results came back to the model, the command's output
// in run_command's), and the panes show the commands' output. It returns
// the calls.
func (c *clientRun) checkCalls() []agentstub.ToolCall {
	c.t.Helper()
	var calls []agentstub.ToolCall
	for i, want := range []struct{ tool, result string }{{"run_command", "ran-42"}, {"send_keys", "Keys sent to pane " + c.keys}} {
		call := c.stub.WaitCall(c.t, i+1, time.Minute)
		calls = append(calls, call)
		c.t.Logf("%s called %s as %s: error %t, task %q, result %q", c.name, call.Tool, call.Name, call.IsError, call.Task, call.Result)
		if call.Name == "" {
			c.t.Fatalf("%s offered the model no %s; it offered %q", c.name, want.tool, call.Offered)
		}
		if call.IsError || !strings.Contains(call.Result, want.result) {
			c.t.Errorf("%s's %s result to the model: %q (error %t), want one with %q", c.name, call.Name, call.Result, call.IsError, want.result)
		}
	}
	for _, want := range []struct{ pane, line string }{{c.pane, "ran-42"}, {c.keys, "sent-42"}} {
		tmuxtest.WaitFor(c.t, 10*time.Second, "pane "+want.pane+" showing "+want.line, func() bool {
			out, _ := c.tm.Tmux("capture-pane", "-p", "-t", want.pane)
			return slices.Contains(strings.Split(out, "\n"), want.line)
		})
	}
	return calls
}

// traceSpan is a span of tmux-mcp's trace file: its name and its
// protocol version.
type traceSpan struct{ name, protocol string }

// spans reads tmux-mcp's trace file: the spans written so far.
func (c *clientRun) spans() []traceSpan {
	f, err := os.Open(c.trace)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []traceSpan
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var span struct {
			Name       string
			Attributes []struct {
				Key   string
				Value struct{ Value any }
			}
		}
		if json.Unmarshal(sc.Bytes(), &span) != nil {
			continue
		}
		s := traceSpan{name: span.Name}
		for _, a := range span.Attributes {
			if a.Key == "mcp.protocol.version" {
				s.protocol = fmt.Sprint(a.Value.Value)
			}
		}
		out = append(out, s)
	}
	return out
}

// waitListed waits for tmux-mcp's span of a tools/list: the client has
// its tools (the server writes its spans within 100 ms).
func (c *clientRun) waitListed() {
	c.t.Helper()
	tmuxtest.WaitFor(c.t, time.Minute, c.name+" listing tmux-mcp's tools", func() bool {
		return slices.ContainsFunc(c.spans(), func(s traceSpan) bool { return s.name == "tools/list" })
	})
}

// protocol is the protocol version of the tools/call spans in tmux-mcp's
// trace: waited for when wait (the server is still running and writes its
// spans within 100 ms), else what is there ("" when nothing: a client may
// kill its server before the spans are written).
func (c *clientRun) protocol(wait bool) string {
	c.t.Helper()
	var version string
	read := func() bool {
		for _, s := range c.spans() {
			if strings.HasPrefix(s.name, "tools/call ") && s.protocol != "" {
				version = s.protocol
				return true
			}
		}
		return false
	}
	if wait {
		tmuxtest.WaitFor(c.t, 30*time.Second, "tmux-mcp's span of a tools/call", read)
	} else {
		read()
	}
	return version
}

// tomlKey is the key of a TOML line `key = value`.
var tomlKey = regexp.MustCompile(`^\s*([A-Za-z0-9_-]+)\s*=`)

// mergeTable adds to config the lines of table (one TOML table, as the
// README writes it, comments after # dropped) with the keys given,
// right after the header of config's table of that name, where a person
// adds a line `codex mcp add` has no flag for. A key config's table has
// already (a key or a sub-table) is an error.
func mergeTable(config, table string, keys ...string) (string, error) {
	lines := strings.Split(strings.TrimSpace(table), "\n")
	header := strings.TrimSpace(lines[0])
	if !strings.HasPrefix(header, "[") {
		return "", fmt.Errorf("no table header in %q", table)
	}
	name := strings.Trim(header, "[]")
	cl := strings.Split(config, "\n")
	at := slices.Index(cl, header)
	if at < 0 {
		return "", fmt.Errorf("config has no %s", header)
	}
	has := map[string]bool{}
	for i := at + 1; i < len(cl); i++ {
		l := strings.TrimSpace(cl[i])
		if strings.HasPrefix(l, "[") {
			if sub, ok := strings.CutPrefix(strings.Trim(l, "[]"), name+"."); ok {
				has[strings.SplitN(sub, ".", 2)[0]] = true
				continue
			}
			break
		}
		if m := tomlKey.FindStringSubmatch(l); m != nil {
			has[m[1]] = true
		}
	}
	var add []string
	for _, l := range lines[1:] {
		l, _, _ = strings.Cut(l, "#")
		if m := tomlKey.FindStringSubmatch(l); m != nil && slices.Contains(keys, m[1]) {
			if has[m[1]] {
				return "", fmt.Errorf("config's %s has %s already", header, m[1])
			}
			add = append(add, strings.TrimSpace(l))
		}
	}
	if len(add) != len(keys) {
		return "", fmt.Errorf("the table has not each of %q: %q", keys, table)
	}
	return strings.Join(slices.Concat(cl[:at+1], add, cl[at+1:]), "\n"), nil
}

// readJSONFile decodes a JSON file into v.
func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// writeJSONFile writes v as a JSON file.
func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err == nil {
		err = os.WriteFile(path, b, 0o600)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
