package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// submitRounds is how many prompts TestSubmitPrompt submits to each
// program: TMUX_MCP_SUBMIT_ROUNDS, 20 unless set (the report of issue 33
// ran 100).
func submitRounds(t *testing.T) int {
	t.Helper()
	n := 20
	if v := os.Getenv("TMUX_MCP_SUBMIT_ROUNDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			t.Fatalf("TMUX_MCP_SUBMIT_ROUNDS=%q: want a positive number", v)
		}
	}
	return n
}

// python returns a python3 that is not a pyenv shim (a shim runs a login
// shell's set-up), or skips.
func python(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no /usr/bin/python3: .ci/run installs it")
	}
	t.Skip("no /usr/bin/python3 (a pyenv shim is not used: it runs shell set-up)")
	return ""
}

// TestSubmitPrompt submits one-line and multi-line prompts to bash's
// readline prompt and to python3's REPL and checks each ran once, whole:
// submit_prompt says it was submitted only when it was, and every prompt
// it says so of ran.
func TestSubmitPrompt(t *testing.T) {
	e := newEnv(t, Mutating)
	rounds := submitRounds(t)
	programs := []struct {
		name   string
		start  func() string
		prompt func(i int) (text string, want []string)
	}{
		{"bash", e.shell, func(i int) (string, []string) {
			if i%3 == 2 {
				return fmt.Sprintf("echo M%da\necho M%db", i, i), []string{fmt.Sprintf("M%da", i), fmt.Sprintf("M%db", i)}
			}
			return fmt.Sprintf("echo S%d", i), []string{fmt.Sprintf("S%d", i)}
		}},
		{"python3", func() string {
			p := e.window("env -i TERM=screen HOME=" + t.TempDir() + " " + python(t) + " -q -I")
			e.waitScreen(p, "the REPL's prompt", func(s string) bool { return strings.HasSuffix(s, ">>>") })
			return p
		}, func(i int) (string, []string) {
			if i%3 == 2 {
				return fmt.Sprintf("print('''Q%d\nR%d''')", i, i), []string{fmt.Sprintf("Q%d", i), fmt.Sprintf("R%d", i)}
			}
			return fmt.Sprintf("print('P%%d' %% %d)", i), []string{fmt.Sprintf("P%d", i)}
		}},
	}
	for _, prog := range programs {
		t.Run(prog.name, func(t *testing.T) {
			p := prog.start()
			var ms []int64
			for i := range rounds {
				text, want := prog.prompt(i)
				var got submitted
				e.ok("submit_prompt", map[string]any{"pane_id": p, "text": text}, &got)
				if got.PaneID != p || got.SubmittedMS < got.TakenMS {
					t.Fatalf("submit_prompt %d = %+v", i, got)
				}
				ms = append(ms, got.SubmittedMS)
				e.waitScreen(p, fmt.Sprintf("the output of prompt %d", i), func(s string) bool {
					lines := strings.Split(s, "\n")
					for _, w := range want {
						if !slices.Contains(lines, w) {
							return false
						}
					}
					return true
				})
			}
			// Each prompt ran exactly once: its output is in the history once.
			hist := e.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", p)
			lines := strings.Split(hist, "\n")
			for i := range rounds {
				_, want := prog.prompt(i)
				for _, w := range want {
					if n := countLines(lines, w); n != 1 {
						t.Errorf("output %q appears %d times, want once", w, n)
					}
				}
			}
			slices.Sort(ms)
			t.Logf("%s: %d of %d prompts submitted and verified; submitted_ms p50 %d, p95 %d, max %d",
				prog.name, rounds, rounds, ms[len(ms)/2], ms[len(ms)*95/100], ms[len(ms)-1])
		})
	}
}

// countLines counts the lines of lines equal to want.
func countLines(lines []string, want string) int {
	n := 0
	for _, l := range lines {
		if strings.TrimRight(l, " ") == want {
			n++
		}
	}
	return n
}

// TestSubmitPromptNotTaken: a program that never reads its input (a
// stopped terminal's sleep) never shows the paste; submit_prompt says so
// with the screen and does not claim a submission.
func TestSubmitPromptNotTaken(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.window("stty -echo; echo READY; exec sleep 600")
	e.waitScreen(p, "READY", func(s string) bool { return strings.Contains(s, "READY") })
	// The timeout bounds the steps before the paste too (the pane's
	// lookup, the guards, its lock and readiness): under -race beside
	// busy loops they took over 1 s on a cold machine, and the call
	// rightly answered that the pane was not ready within it. With 3 s
	// the wait that runs out is the one for the paste to show.
	msg := e.fails("submit_prompt", map[string]any{"pane_id": p, "text": "hello", "timeout": 3},
		"prompt not submitted to pane "+p, "did not show the text", "The screen now:", "READY", "[not_submitted]")
	if strings.Contains(msg, "Prompt submitted") {
		t.Errorf("error %q claims a submission", msg)
	}
}

// fakeAgent starts, in a new window, a process named like an agent CLI
// (a copy of sleep called name, so that its process tree names it) and
// returns its pane and the process.
func (e *env) fakeAgent(name string) (pane string, pid int) {
	e.t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		e.t.Skip("no sleep")
	}
	bin := filepath.Join(e.t.TempDir(), name)
	b, err := os.ReadFile(sleep)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		e.t.Fatal(err)
	}
	pane = e.window("echo started; " + bin + " 600; echo back; exec sleep 600")
	panePID, _ := strconv.Atoi(e.tmux("display-message", "-p", "-t", pane, "#{pane_pid}"))
	tmuxtest.WaitFor(e.t, 10*time.Second, "the agent's process", func() bool {
		pids, _ := jobs.PaneTree(context.Background(), panePID)
		for _, p := range pids {
			if args, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); strings.HasPrefix(string(args), bin+"\x00") {
				pid = p
			}
		}
		return pid > 0
	})
	return pane, pid
}

// TestTypingIntoAgentPane: a pane whose process tree runs an agent CLI
// (by its executable's name, whatever its title says) is listed with
// the agent, refuses keys without allow_agent, takes them with it, and
// reads exited once the agent ended.
func TestTypingIntoAgentPane(t *testing.T) {
	e := newEnv(t, Mutating)
	p, pid := e.fakeAgent("claude")
	plain := e.shell()
	e.tmux("select-pane", "-t", plain, "-T", "claude") // a title says nothing

	var pi PaneInfo
	e.ok("get_pane_info", map[string]any{"pane_id": p}, &pi)
	if pi.Agent == nil || pi.Agent.Name != "claude" || pi.Agent.PID != pid || pi.Agent.State != "unknown" {
		t.Errorf("get_pane_info(%s).agent = %+v, want claude, process %d, unknown (its screen is no agent's)", p, pi.Agent, pid)
	}
	var plainInfo PaneInfo
	e.ok("get_pane_info", map[string]any{"pane_id": plain}, &plainInfo)
	if plainInfo.Agent != nil {
		t.Errorf("get_pane_info(%s).agent = %+v for a shell titled claude, want none", plain, plainInfo.Agent)
	}
	for _, tool := range []struct {
		name string
		args map[string]any
	}{
		{"send_keys", map[string]any{"keys": "x"}},
		{"paste_text", map[string]any{"text": "x"}},
		{"submit_prompt", map[string]any{"text": "x"}},
		{"run_command", map[string]any{"command": "true"}},
	} {
		tool.args["pane_id"] = p
		e.fails(tool.name, tool.args, "pane "+p+" runs claude, an agent CLI (process "+strconv.Itoa(pid)+")",
			"needs allow_agent: true", "[agent_pane]")
	}
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": "x", "enter": false, "allow_agent": true}, nil)
	e.fails("submit_prompt", map[string]any{"pane_id": p, "text": "x", "allow_agent": true},
		"claude shows no input area it is known to draw", "nothing was typed", "The screen now:", "started", "[not_submitted]")
	e.ok("send_keys", map[string]any{"pane_id": plain, "keys": "true"}, nil)

	if err := syscallKill(pid); err != nil {
		t.Fatal(err)
	}
	e.waitScreen(p, "back", func(s string) bool { return strings.Contains(s, "back") })
	var list struct {
		Result []PaneInfo `json:"result"`
	}
	e.ok("list_panes", map[string]any{"session_name": "main"}, &list)
	for _, x := range list.Result {
		if x.PaneID == p && (x.Agent == nil || x.Agent.State != "exited" || x.Agent.Name != "claude") {
			t.Errorf("list_panes: pane %s agent = %+v after the agent ended, want claude exited", p, x.Agent)
		}
	}
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": "x", "enter": false}, nil) // no agent runs now
}

// TestTypingIntoAttendedPane: a pane a person works in (a real client
// attached to its session shows it, and typed a moment ago) refuses keys
// without allow_attended; tmux-mcp's own control clients never count.
func TestTypingIntoAttendedPane(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.shell()
	e.tmux("select-window", "-t", p)
	e.tmux("select-pane", "-t", p)
	other := e.split(p)
	e.tmux("select-pane", "-t", p)
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": "true"}, nil) // only control clients so far

	// A person: a terminal (a pane of another tmux server) attached to
	// session main, typing.
	outer := tmuxtest.New(t)
	outer.MustTmux("new-session", "-d", "-s", "outer", "-x", "120", "-y", "40",
		tmuxtest.Binary(t)+" -S "+e.tm.Socket+" attach-session -t main")
	tmuxtest.WaitFor(t, 10*time.Second, "the client attached", func() bool {
		out, _ := e.tm.Tmux("list-clients", "-F", "#{client_control_mode}")
		return strings.Contains(out, "0")
	})
	outer.MustTmux("send-keys", "-t", "outer:", "-l", " ")

	e.fails("send_keys", map[string]any{"pane_id": p, "keys": "true"},
		"a person is working in pane "+p, "typed", "needs allow_attended: true", "[attended_pane]")
	e.fails("submit_prompt", map[string]any{"pane_id": p, "text": "true"}, "[attended_pane]")
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": "true", "allow_attended": true}, nil)
	e.ok("send_keys", map[string]any{"pane_id": other, "keys": "true"}, nil) // not the pane the person is in
}

// syscallKill ends a process the test started.
func syscallKill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// TestSubmitPromptEnterTakenAsNewline: a program that takes the first
// Enter after a paste as a new line in its input box (as Gemini CLI does
// while its 40 ms paste window is open, which make ci's race run once
// stretched past submit_prompt's settle): submit_prompt sees the box grow
// by an empty row, takes the new line back and presses Enter again; the
// program gets each prompt once, whole. Also when the program redraws in
// parts and late, as Gemini CLI does beside busy loops: the new line is
// taken back only once the box shows it so, not at the first quiet screen.
// And when the program drops the first Enter without a sign: after
// drive.unansweredAfter it is pressed again, and the prompt arrives once.
func TestSubmitPromptEnterTakenAsNewline(t *testing.T) {
	for _, mode := range []string{"prompt", "lagging-backspace", "deaf-enter"} {
		t.Run(mode, func(t *testing.T) { submitIntoSlowPaste(t, mode) })
	}
}

// submitIntoSlowPaste runs TestSubmitPromptEnterTakenAsNewline against
// testdata/slowpaste.py in mode: "prompt" redraws at once,
// "lagging-backspace" redraws its status line first and takes the
// Backspace 0.4 s later, as a program starved of CPU does.
func submitIntoSlowPaste(t *testing.T, mode string) {
	t.Helper()
	e := newEnv(t, Mutating)
	p, log := startSlowPaste(e, mode)
	prompts := []string{"prompt one", "prompt two line one\nline two\nline three"}
	for _, text := range prompts {
		var got submitted
		e.ok("submit_prompt", map[string]any{"pane_id": p, "text": text, "allow_agent": true}, &got)
		if got.Enters != 2 || got.Agent == nil || got.Agent.Name != "gemini" {
			t.Errorf("submit_prompt %q = %+v, want 2 Enters, gemini", text, got)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), strings.Join(prompts, "\n---\n")+"\n---\n"; got != want {
		t.Errorf("the program got\n%s\nwant\n%s", got, want)
	}
}

// TestSubmitPromptWhileRedrawing: an agent CLI caught redrawing (its
// screen cleared after a resize, the box not back yet: Codex after a
// split beside it, make ci once) is waited for, not refused as a dialog;
// the prompt arrives once.
func TestSubmitPromptWhileRedrawing(t *testing.T) {
	e := newEnv(t, Mutating)
	p, log := startSlowPaste(e, "slow-redraw")
	e.tmux("resize-window", "-t", p, "-x", "100", "-y", "30")
	e.waitScreen(p, "the cleared screen", func(s string) bool { return strings.TrimSpace(s) == "" })
	var got submitted
	e.ok("submit_prompt", map[string]any{"pane_id": p, "text": "prompt one", "allow_agent": true}, &got)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "prompt one\n---\n"; got != want {
		t.Errorf("the program got %q, want %q", got, want)
	}
}

// TestAnswerPermissionWhileRedrawing: an agent CLI caught redrawing its
// question (the dialog erased, the transcript's last prompt between its
// rules reading as the input box: Gemini CLI in make ci) is read again
// until the question is back, not refused [not_asking]; the answer's key
// is typed once.
func TestAnswerPermissionWhileRedrawing(t *testing.T) {
	e := newEnv(t, Mutating)
	p, log := startSlowPaste(e, "dialog-redraw")
	e.tmux("resize-window", "-t", p, "-x", "100", "-y", "30")
	e.waitScreen(p, "the question erased", func(s string) bool { return !strings.Contains(s, "Allow execution") })
	e.ok("answer_permission", map[string]any{"pane_id": p, "answer": "yes"}, nil)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "answer 1\n---\n"; got != want {
		t.Errorf("the program got %q, want %q", got, want)
	}
}

// startSlowPaste starts testdata/slowpaste.py in mode, run as a copy of
// python3 named gemini, in a window of e, and returns its pane and the
// file it writes each submitted prompt to, once its box is drawn.
func startSlowPaste(e *env, mode string) (pane, log string) {
	t := e.t
	t.Helper()
	dir := t.TempDir()
	py, err := os.ReadFile(python(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "gemini")
	if err := os.WriteFile(bin, py, 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/slowpaste.py")
	if err != nil {
		t.Fatal(err)
	}
	log = filepath.Join(dir, "submitted")
	pane = e.window("env -i TERM=screen HOME=" + dir + " " + bin + " -I " + script + " " + log + " " + mode)
	e.waitScreen(pane, "the input box or question", func(s string) bool {
		return strings.Contains(s, "Type your message") || strings.Contains(s, "Allow execution")
	})
	return pane, log
}
