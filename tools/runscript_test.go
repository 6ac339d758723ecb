package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
)

// testShell is a shell a pane can run, with the prompt "$ " and no
// start-up files.
type testShell struct {
	name string // the program
	cmd  string
}

var testShells = []testShell{
	{"sh", "env PS1='$ ' sh"},
	{"bash", "env PS1='$ ' HISTFILE=/dev/null bash --noprofile --norc"},
	{"zsh", "env PS1='$ ' zsh -f"},
}

// requireShell skips a test without the shell, except in CI, which
// installs it (.ci/run).
func requireShell(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; CI installs it (.ci/run)", name)
		}
		t.Skipf("%s is not installed", name)
	}
}

// prompt starts sh in a window and waits for its prompt.
func (e *env) prompt(sh testShell) string {
	e.t.Helper()
	p := e.window(sh.cmd)
	e.waitScreen(p, sh.name+"'s prompt", func(s string) bool { return strings.HasSuffix(s, "$") })
	return p
}

// typeLine types a line at a pane's prompt and waits for the next prompt.
func (e *env) typeLine(pane, line string) {
	e.t.Helper()
	before := strings.Count(e.screen(pane), "\n")
	e.tmux("send-keys", "-t", pane, "-l", line)
	e.tmux("send-keys", "-t", pane, "Enter")
	e.waitScreen(pane, "the prompt after "+line, func(s string) bool {
		return strings.Count(s, "\n") > before && strings.HasSuffix(s, "$")
	})
}

// TestRunCommandShells runs commands at the prompt of sh (dash), bash and
// zsh: one line is typed whatever the command (no continuation prompt),
// the command sees the shell's aliases, functions and directory and
// changes none of them, and the output and status are the command's.
func TestRunCommandShells(t *testing.T) {
	long := "echo " + strings.Repeat("x", 5000)
	for _, sh := range testShells {
		t.Run(sh.name, func(t *testing.T) {
			requireShell(t, sh.name)
			e := newEnv(t, Mutating)
			p := e.prompt(sh)
			e.typeLine(p, "alias ll='echo ALIAS_OK'")
			e.typeLine(p, "f() { echo FN_$1; }")
			e.typeLine(p, "cd /tmp")
			tests := []struct {
				command string
				history bool // suppress_history false
				status  int
				output  []string
			}{
				{`echo "c!d" 'e'\''f' # a comment`, false, 0, []string{`c!d e'f`}},
				{"printf '%s\\n' one\n\tprintf '%s-%s\\n' \"t!\" \\\n  two", true, 0, []string{"one", "t!-two"}},
				{"cat <<EOF\nhere $((1+1))\nEOF", true, 0, []string{"here 2"}},
				{"ll; f x; pwd", false, 0, []string{"ALIAS_OK", "FN_x", "/tmp"}},
				{"cd /; unalias ll; X=1; exit 4", false, 4, []string{}},
				{"ll; pwd; echo ${X-unset}", false, 0, []string{"ALIAS_OK", "/tmp", "unset"}},
				{long, false, 0, []string{long[5:]}},
			}
			for _, tt := range tests {
				var r runResult
				e.ok("run_command", map[string]any{"pane_id": p, "command": tt.command, "suppress_history": !tt.history}, &r)
				if deref(r.ExitStatus) != tt.status || !slices.Equal(r.Output, tt.output) || r.Truncated {
					t.Errorf("run_command(%.60q) = exit %v, output %.200q (truncated %v); want exit %d, output %.200q",
						tt.command, deref(r.ExitStatus), r.Output, r.Truncated, tt.status, tt.output)
				}
			}
			if s := e.screen(p); strings.Contains(s, "\n> ") || strings.Contains(s, "\n>\n") {
				t.Errorf("the pane shows a continuation prompt:\n%s", s)
			}
			// A syntax error stays inside the command.
			var r runResult
			e.ok("run_command", map[string]any{"pane_id": p, "command": "if then"}, &r)
			if r.ExitStatus == nil || *r.ExitStatus == 0 || r.TimedOut {
				t.Errorf("run_command(if then) = exit %v, timed out %v; want a failure status", deref(r.ExitStatus), r.TimedOut)
			}
		})
	}
}

// TestRunCommandWatcherView: in the pane, a command leaves the line typed
// (the command readable in it), its output and one line of machinery, the
// end marker, before the next prompt.
func TestRunCommandWatcherView(t *testing.T) {
	for _, sh := range testShells {
		t.Run(sh.name, func(t *testing.T) {
			requireShell(t, sh.name)
			e := newEnv(t, Mutating)
			p := e.prompt(sh)
			e.tmux("clear-history", "-t", p)
			for _, c := range []struct {
				command string
				typed   string
			}{
				{"echo one; echo two", `(eval 'echo one; echo two')`},
				{"echo three\necho four", `(eval "$(printf %b 'echo three\necho four')")`},
			} {
				e.ok("run_command", map[string]any{"pane_id": p, "command": c.command, "suppress_history": false}, nil)
				lines := strings.Split(e.screen(p), "\n")
				for i := range lines {
					lines[i] = strings.TrimRight(lines[i], " ") // tmux 3.2a's -J keeps trailing blanks
				}
				i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, c.typed) })
				if i < 0 || len(lines) < i+5 {
					t.Fatalf("run_command(%q): the pane shows\n%s\nwant a line with %s", c.command, strings.Join(lines, "\n"), c.typed)
				}
				got := lines[i+1:]
				if !strings.HasPrefix(lines[i], "$ (eval ") || !strings.HasPrefix(got[2], "[tmux-mcp ") ||
					!strings.HasSuffix(got[2], "] exit 0") || len(got) != 4 || got[3] != "$" {
					t.Errorf("run_command(%q): the pane shows\n%s\nwant the line typed, two lines of output, the end marker and the prompt",
						c.command, strings.Join(lines[i:], "\n"))
				}
				e.tmux("send-keys", "-t", p, "-l", "clear")
				e.tmux("send-keys", "-t", p, "Enter")
				e.waitScreen(p, "a clear screen", func(s string) bool { return s == "$" })
			}
		})
	}
}

// TestRunCommandFiles: the files the typed line sources live in a
// directory of this user's alone, each is gone once its command ended (a
// long command's file as soon as the shell read it), the file of a
// command still running stays until Close, and without a place for files
// the typed line carries the end itself.
func TestRunCommandFiles(t *testing.T) {
	base := t.TempDir()
	e := newEnv(t, Mutating, func(d *Deps) { d.TempDir = base })
	p := e.shell()
	files := func() []string {
		t.Helper()
		m, err := filepath.Glob(filepath.Join(base, "tmux-mcp-run-*", "*"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	var r runResult
	e.ok("run_command", map[string]any{"pane_id": p, "command": "echo ok"}, &r)
	dirs, _ := filepath.Glob(filepath.Join(base, "tmux-mcp-run-*"))
	if len(dirs) != 1 {
		t.Fatalf("directories %q, want one", dirs)
	}
	fi, err := os.Stat(dirs[0])
	if err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
		t.Errorf("%s: %v %v, want a directory with mode 0700", dirs[0], fi.Mode(), err)
	}
	if f := files(); len(f) != 0 || !slices.Equal(r.Output, []string{"ok"}) {
		t.Errorf("after run_command(echo ok) = %q: files %q, want none", r.Output, f)
	}
	e.ok("run_command", map[string]any{"pane_id": p, "command": "echo " + strings.Repeat("y", 3000)}, &r)
	if f := files(); len(f) != 0 || len(r.Output) != 1 || len(r.Output[0]) != 3000 {
		t.Errorf("after a long command (%d lines): files %q, want none", len(r.Output), f)
	}
	e.ok("run_command", map[string]any{"pane_id": p, "command": "sleep 30", "timeout": 0.5}, &r)
	if f := files(); !r.TimedOut || len(f) != 1 {
		t.Errorf("a command that timed out: files %q, want its own", f)
	}
	e.tmux("send-keys", "-t", p, "C-c")
	if err := e.srv.Close(); err != nil {
		t.Fatal(err)
	}
	if dirs, _ := filepath.Glob(filepath.Join(base, "*")); len(dirs) != 0 {
		t.Errorf("after Close: %q, want nothing", dirs)
	}

	// No place for files.
	e2 := newEnv(t, Mutating, func(d *Deps) { d.TempDir = filepath.Join(base, "missing", "dir") })
	p2 := e2.shell()
	e2.ok("run_command", map[string]any{"pane_id": p2, "command": "echo inline"}, &r)
	if !slices.Equal(r.Output, []string{"inline"}) || deref(r.ExitStatus) != 0 || !strings.Contains(e2.screen(p2), "wait-for -S tmux_mcp_run_") {
		t.Errorf("run_command without files = %q, exit %v; screen:\n%s", r.Output, deref(r.ExitStatus), e2.screen(p2))
	}
}

// TestRunCommandFish refuses a pane whose prompt is fish's, before
// typing anything.
func TestRunCommandFish(t *testing.T) {
	requireShell(t, "fish")
	e := newEnv(t, Mutating)
	p := e.window("env HOME=" + t.TempDir() + " fish --no-config")
	tmuxtest.WaitFor(t, 10*time.Second, "fish", func() bool {
		return e.tmux("display-message", "-p", "-t", p, "#{pane_current_command}") == "fish" && e.screen(p) != ""
	})
	before := e.screen(p)
	e.fails("run_command", map[string]any{"pane_id": p, "command": "echo hi"}, "pane "+p+" runs fish", "nothing was sent")
	if after := e.screen(p); after != before {
		t.Errorf("the pane changed:\n%s\nwas:\n%s", after, before)
	}
}

func TestSubshell(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{"make test", `(eval 'make test')`},
		{`echo 'a' "$HOME" # c`, `(eval 'echo '\''a'\'' "$HOME" # c')`},
		{"echo \"hi!\"", `(eval 'echo "hi!"')`},
		{"cd src\nmake test", `(eval "$(printf %b 'cd src\nmake test')")`},
		{"printf 'a\\tb'\n\techo \"!\"\x1b", `(eval "$(printf %b 'printf '\''a\\tb'\''\n\techo "\0041"\0033')")`},
	}
	for _, tt := range tests {
		if got := subshell(tt.cmd); got != tt.want {
			t.Errorf("subshell(%q) = %s, want %s", tt.cmd, got, tt.want)
		}
	}
}

// TestEscapeBDecodes has sh, bash and zsh decode escapeB's text with
// printf %b: every byte comes back as it was.
func TestEscapeBDecodes(t *testing.T) {
	var all []byte
	for c := 1; c < 256; c++ {
		all = append(all, byte(c))
	}
	cmds := []string{"a\nb\tc\\d\\\\e\\nf!g'h\"i$j`k", "\\c stops %b", "\\0101 \\x41 \\u0041", string(all), "ü€\u2028"}
	for _, sh := range []string{"sh", "bash", "zsh"} {
		if _, err := exec.LookPath(sh); err != nil {
			continue
		}
		for _, cmd := range cmds {
			out, err := exec.Command(sh, "-c", "printf %b "+shQuote(escapeB(cmd))).Output()
			if err != nil || string(out) != cmd {
				t.Errorf("%s: printf %%b %s = %q (%v), want %q", sh, shQuote(escapeB(cmd)), out, err, cmd)
			}
		}
	}
}

// TestRunCommandWithoutPrompt: a shell that prints no prompt still ends
// each run (the wait for a prompt after the end marker is bounded).
func TestRunCommandWithoutPrompt(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.window("env PS1= sh")
	tmuxtest.WaitFor(t, 10*time.Second, "sh", func() bool {
		return e.tmux("display-message", "-p", "-t", p, "#{pane_current_command}") == "sh"
	})
	for _, c := range []string{"echo one", "echo two"} {
		var r runResult
		e.ok("run_command", map[string]any{"pane_id": p, "command": c}, &r)
		if want := strings.TrimPrefix(c, "echo "); !slices.Equal(r.Output, []string{want}) || deref(r.ExitStatus) != 0 {
			t.Errorf("run_command(%s) = %q, exit %v; want [%s], exit 0", c, r.Output, deref(r.ExitStatus), want)
		}
	}
}
