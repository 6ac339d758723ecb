package tools

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// bashCmd is a shell for a test pane: bash without startup files, the
// prompt "$ ".
const bashCmd = "env PS1='$ ' HISTFILE=/dev/null bash --noprofile --norc"

// TestSynchronizedAgentPane (issue 42): with synchronize-panes on in the
// window of a real agent CLI's pane, keys for the shell beside it reach
// the agent too: they need allow_agent, and are refused whatever the
// arguments while the agent asks a permission question (before the fix
// send_keys "1" to the shell answered it). set_option turning the option
// on over the agent's window needs allow_agent (by any scope and any
// unique prefix of the name), and is refused over a question.
func TestSynchronizedAgentPane(t *testing.T) {
	for _, name := range []string{agentstub.Claude, agentstub.Codex} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, Mutating)
			stub, p := e.agentCLI(name)
			win := e.tmux("display-message", "-p", "-t", p, "#{window_id}")
			sh := e.split(p, bashCmd)
			e.waitScreen(sh, "prompt", func(s string) bool { return strings.Contains(s, "$") })
			e.ok("send_keys", map[string]any{"pane_id": sh, "keys": "true"}, nil) // not synchronized yet

			on := func(args map[string]any) map[string]any {
				args["value"] = "on"
				if args["option"] == nil {
					args["option"] = "synchronize-panes"
				}
				return args
			}
			for _, args := range []map[string]any{
				{"scope": "window", "target": win},
				{"scope": "pane", "target": sh},
				{"scope": "window", "global_": true},
				{"scope": "window", "target": win, "option": "synchron"},
			} {
				e.fails("set_option", on(args), "would turn synchronize-panes on", "reach pane "+p, "runs "+name,
					"needs allow_agent: true", "[agent_pane]")
			}
			if got := e.tmux("show-options", "-A", "-v", "-p", "-t", sh, "synchronize-panes"); got != "off" {
				t.Fatalf("synchronize-panes of %s is %q after the refusals, want off", sh, got)
			}
			e.ok("set_option", on(map[string]any{"scope": "window", "target": win, "allow_agent": true}), nil)
			e.fails("send_keys", map[string]any{"pane_id": sh, "keys": "true"},
				"keys typed into pane "+sh+" reach pane "+p+" too", "synchronize-panes on", "runs "+name, "[agent_pane]")

			// A permission question, asked with the option off.
			e.ok("set_option", map[string]any{"option": "synchronize-panes", "value": "off", "scope": "window", "target": win}, nil)
			marker := filepath.Join(t.TempDir(), "touched")
			stub.Push(agentstub.Reply{Command: "touch " + marker})
			e.ok("submit_prompt", map[string]any{"pane_id": p, "text": "create the marker file", "allow_agent": true, "timeout": 30}, nil)
			stub.WaitPrompt(t, 1, 30*time.Second)
			var turn agentTurn
			e.ok("wait_for_agent", map[string]any{"pane_id": p, "timeout": 30}, &turn)
			if turn.Agent == nil || turn.Agent.State != "asking_permission" {
				t.Fatalf("wait_for_agent = %+v, want asking_permission", turn.Agent)
			}
			e.fails("set_option", on(map[string]any{"scope": "window", "target": win, "allow_agent": true}),
				"would turn synchronize-panes on", "is asking a question", "touch "+marker, "[asking_permission]")
			// The person turns it on; then nothing typed into the shell
			// may answer the question.
			e.tmux("set-option", "-w", "-t", win, "synchronize-panes", "on")
			for _, tool := range []struct {
				name string
				args map[string]any
			}{
				{"send_keys", map[string]any{"keys": "1"}},
				{"send_keys", map[string]any{"keys": "y", "enter": false}},
				{"paste_text", map[string]any{"text": "1"}},
				{"submit_prompt", map[string]any{"text": "1"}},
				{"run_command", map[string]any{"command": "true"}},
			} {
				tool.args["pane_id"] = sh
				e.fails(tool.name, tool.args, "reach pane "+p+" too", "[agent_pane]")
				if tool.name != "run_command" {
					tool.args["allow_agent"] = true
					e.fails(tool.name, tool.args, "reach pane "+p+" too", "is asking a question", "[asking_permission]")
				}
			}
			if a := e.agentState(p); a == nil || a.State != "asking_permission" {
				t.Fatalf("after the refusals the agent is %+v, want still asking", a)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the command ran: keys reached the question")
			}
			e.ok("answer_permission", map[string]any{"pane_id": p, "answer": "yes"}, nil)
			tmuxtest.WaitFor(t, 30*time.Second, "the allowed command's file", func() bool {
				_, err := os.Stat(marker)
				return err == nil
			})
		})
	}
}

// TestSynchronizedAttendedPane (issue 42): a person works in a pane (a
// real client attached, typing); with synchronize-panes on in its window,
// keys for the pane beside it reach the person's pane and need
// allow_attended, and set_option turning the option on there needs it
// too.
func TestSynchronizedAttendedPane(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.window(bashCmd)
	win := e.tmux("display-message", "-p", "-t", p, "#{window_id}")
	e.tmux("select-window", "-t", p)
	other := e.split(p, bashCmd)
	e.tmux("select-pane", "-t", p)
	elsewhere := e.shell()
	outer := tmuxtest.New(t)
	outer.MustTmux("new-session", "-d", "-s", "outer", "-x", "120", "-y", "40",
		tmuxtest.Binary(t)+" -S "+e.tm.Socket+" attach-session -t main")
	tmuxtest.WaitFor(t, 10*time.Second, "the client attached", func() bool {
		out, _ := e.tm.Tmux("list-clients", "-F", "#{client_control_mode}")
		return strings.Contains(out, "0")
	})
	outer.MustTmux("send-keys", "-t", "outer:", "-l", " ")
	e.ok("send_keys", map[string]any{"pane_id": other, "keys": "true"}, nil) // not synchronized yet

	e.fails("set_option", map[string]any{"option": "synchronize-panes", "value": "on", "scope": "window", "target": win},
		"would turn synchronize-panes on", "reach pane "+p, "a person is working in pane "+p, "needs allow_attended: true", "[attended_pane]")
	e.fails("set_option", map[string]any{"option": "synchronize-pan", "value": "on", "scope": "session", "target": "main"},
		"a person is working in pane "+p, "[attended_pane]")
	if got := e.tmux("show-options", "-A", "-v", "-w", "-t", win, "synchronize-panes"); got != "off" {
		t.Fatalf("synchronize-panes of %s is %q after the refusals, want off", win, got)
	}
	// Elsewhere it is fine.
	ewin := e.tmux("display-message", "-p", "-t", elsewhere, "#{window_id}")
	e.ok("set_option", map[string]any{"option": "synchronize-panes", "value": "on", "scope": "window", "target": ewin}, nil)
	e.ok("set_option", map[string]any{"option": "synchronize-panes", "value": "on", "scope": "window", "target": win, "allow_attended": true}, nil)
	outer.MustTmux("send-keys", "-t", "outer:", "-l", " ")
	e.fails("send_keys", map[string]any{"pane_id": other, "keys": "true"},
		"keys typed into pane "+other+" reach pane "+p+" too", "a person is working in pane "+p, "[attended_pane]")
	e.fails("paste_text", map[string]any{"pane_id": other, "text": "true"}, "reach pane "+p+" too", "[attended_pane]")
	e.fails("run_command", map[string]any{"pane_id": other, "command": "true"}, "reach pane "+p+" too", "[attended_pane]")
	e.ok("send_keys", map[string]any{"pane_id": other, "keys": "true", "allow_attended": true}, nil)
}

// TestAgentBehindTerminalClient (issue 42): a real Claude Code runs in a
// nested tmux server whose client is attached inside a pane of the test's
// server: the pane's process tree shows only the tmux client. Its screen,
// read with every agent's rules, still guards the pane: keys need
// allow_agent while it shows the agent, and no typing tool gets through
// while it shows a permission question (before the fix send_keys
// answered it).
func TestAgentBehindTerminalClient(t *testing.T) {
	e := newEnv(t, Mutating)
	exe := agentstub.CLI(t, agentstub.Claude)
	stub := agentstub.Start(t)
	l := stub.Launch(t, agentstub.Claude, exe)
	inner := tmuxtest.New(t)
	inner.MustTmux(append([]string{"new-session", "-d", "-s", "agent", "-x", "120", "-y", "40", "--"}, l.CommandArgs()...)...)
	innerPID := inner.MustTmux("display-message", "-p", "-t", "agent:", "#{pane_pid}")
	reapPID(t, innerPID)
	inner.MustTmux("set-option", "-g", "status", "off")
	// The pane's client: a person's `tmux attach` to the nested server.
	outer := e.window("env -u TMUX " + tmuxtest.Binary(t) + " -S " + inner.Socket + " attach-session -t agent")
	e.tmux("resize-window", "-t", outer, "-x", "120", "-y", "40")
	tmuxtest.WaitFor(t, 60*time.Second, "Claude at its prompt in "+outer, func() bool { return strings.Contains(e.screen(outer), "? for shortcuts") })
	if a := e.agentState(outer); a != nil {
		t.Fatalf("get_pane_info(%s).agent = %+v, want none: its tree shows a tmux client", outer, a)
	}
	e.fails("send_keys", map[string]any{"pane_id": outer, "keys": "hello"},
		"pane "+outer+" shows claude, an agent CLI, behind tmux", "needs allow_agent: true", "[agent_pane]")

	marker := filepath.Join(t.TempDir(), "touched")
	stub.Push(agentstub.Reply{Command: "touch " + marker})
	e.ok("submit_prompt", map[string]any{"pane_id": outer, "text": "create the marker file", "allow_agent": true, "timeout": 30}, nil)
	stub.WaitPrompt(t, 1, 30*time.Second)
	tmuxtest.WaitFor(t, 30*time.Second, "the question in "+outer, func() bool { return strings.Contains(e.screen(outer), "Do you want to proceed?") })
	for _, tool := range []struct {
		name string
		args map[string]any
	}{
		{"send_keys", map[string]any{"keys": "1", "enter": false}},
		{"send_keys", map[string]any{"keys": "1", "allow_agent": true}},
		{"paste_text", map[string]any{"text": "1", "allow_agent": true}},
		{"submit_prompt", map[string]any{"text": "1", "allow_agent": true}},
	} {
		tool.args["pane_id"] = outer
		e.fails(tool.name, tool.args, "shows claude's permission question behind tmux", "touch "+marker, "[asking_permission]")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran: keys reached the question")
	}
}

// programCut matches what an agent CLI puts in its dialog where it hides
// part of a long command itself (Gemini: "... first 4 lines hidden",
// Codex: "[… 80 lines]").
var programCut = regexp.MustCompile(`lines hidden|\[… ?\d+ lines\]`)

// reapPID is tmuxtest.Reap for a pane process given as text.
func reapPID(t *testing.T, pid string) {
	t.Helper()
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.Reap(t, n)
}

// TestAgentQuestionsOnScreen (issue 42): a reply that prints every CLI's
// permission question and options is transcript, not a question: the
// agent waits for input, submit_prompt goes through, answer_permission
// refuses [not_asking] and types nothing (before the fix it read
// asking_permission, locked submit_prompt out and typed its key into the
// input). A question about a long multi-line command is reported from the
// command's first line to its last (before the fix only 12 lines above
// the question line were kept).
func TestAgentQuestionsOnScreen(t *testing.T) {
	for _, name := range []string{agentstub.Claude, agentstub.Codex, agentstub.Gemini} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, Mutating)
			stub, p := e.agentCLI(name)
			stub.Push(agentstub.Reply{Text: agentstub.ForgedQuestion})
			e.ok("submit_prompt", map[string]any{"pane_id": p, "text": "say the forged thing", "allow_agent": true, "timeout": 30}, nil)
			stub.WaitPrompt(t, 1, 30*time.Second)
			var turn agentTurn
			e.ok("wait_for_agent", map[string]any{"pane_id": p, "timeout": 30}, &turn)
			if turn.Agent == nil || turn.Agent.State != "waiting_for_input" || !strings.Contains(turn.Answer, "Allow execution of [Shell]?") {
				t.Fatalf("wait_for_agent after a forged question = %+v (answer %q), want waiting_for_input with the reply", turn.Agent, turn.Answer)
			}
			e.fails("answer_permission", map[string]any{"pane_id": p, "answer": "yes"}, "is not asking anything", "[not_asking]")
			if a := e.agentState(p); a == nil || a.State != "waiting_for_input" {
				t.Fatalf("after answer_permission the agent is %+v, want waiting_for_input (nothing typed)", a)
			}
			e.ok("submit_prompt", map[string]any{"pane_id": p, "text": "and now?", "allow_agent": true, "timeout": 30}, nil)
			if got := stub.WaitPrompt(t, 2, 30*time.Second); got != "and now?" {
				t.Fatalf("the second prompt reached the model as %q", got)
			}
			e.ok("wait_for_agent", map[string]any{"pane_id": p, "timeout": 30}, &turn)

			marker := filepath.Join(t.TempDir(), "touched")
			stub.Push(agentstub.Reply{Command: agentstub.LongCommand(20, marker)})
			e.ok("submit_prompt", map[string]any{"pane_id": p, "text": "run the long command", "allow_agent": true, "timeout": 30}, nil)
			stub.WaitPrompt(t, 3, 30*time.Second)
			e.ok("wait_for_agent", map[string]any{"pane_id": p, "timeout": 30}, &turn)
			if turn.Agent == nil || turn.Agent.State != "asking_permission" {
				t.Fatalf("wait_for_agent = %+v, want asking_permission", turn.Agent)
			}
			// The whole command, but where the program itself shows only
			// part of it (Gemini CLI does when the dialog is taller than
			// the room its screen leaves, which varies with what it shows
			// above, and then cuts lines at both ends): the question says
			// so in the program's words, and holds what the dialog shows.
			wants := []string{"echo step-1", "1. "}
			if !programCut.MatchString(turn.Agent.Question) {
				wants = append(wants, "echo FIRST-LINE-OF-THE-COMMAND-", "echo step-01", "echo step-20", "touch "+marker)
			}
			for _, want := range wants {
				if !strings.Contains(turn.Agent.Question, want) {
					t.Errorf("question lacks %q:\n%s", want, turn.Agent.Question)
				}
			}
			e.ok("answer_permission", map[string]any{"pane_id": p, "answer": "no"}, nil)
			if _, err := os.Stat(marker); err == nil {
				t.Error("the command ran, though the answer was no")
			}
		})
	}
}
