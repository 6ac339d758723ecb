package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
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
				var r drive.RunResult
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
			var r drive.RunResult
			e.ok("run_command", map[string]any{"pane_id": p, "command": "if then"}, &r)
			if r.ExitStatus == nil || *r.ExitStatus == 0 || r.TimedOut {
				t.Errorf("run_command(if then) = exit %v, timed out %v; want a failure status", deref(r.ExitStatus), r.TimedOut)
			}
		})
	}
}

// TestRunCommandWatcherView: a person watching the pane sees, after the
// prompt, the command the agent ran (its lines as given) and its output,
// then the next prompt, and nothing of run_command's (the line it typed,
// the file it sourced, an end marker); the shell's $? is the command's
// status; and the agent's result is the output and the status.
func TestRunCommandWatcherView(t *testing.T) {
	for _, sh := range testShells {
		t.Run(sh.name, func(t *testing.T) {
			requireShell(t, sh.name)
			e := newEnv(t, Mutating)
			p := e.prompt(sh)
			e.tmux("clear-history", "-t", p)
			for _, c := range []struct {
				command string
				history bool
				status  int
				output  []string
				screen  []string // the pane, from the top, right-trimmed
			}{
				{"echo one; echo two", false, 0, []string{"one", "two"},
					[]string{"$ echo one; echo two", "one", "two", "$"}},
				{"echo three\necho four", true, 0, []string{"three", "four"},
					[]string{"$ echo three", "echo four", "three", "four", "$"}},
				{"printf 'no newline'; exit 3", false, 3, []string{"no newline"},
					[]string{"$ printf 'no newline'; exit 3", "no newline$"}},
				// A tab shows as the terminal spaces it (to column 16); an
				// escape in the command shows as text, never reaches the
				// terminal.
				{"echo tab\there; printf '\\033[1m\\033[0m'", true, 0, []string{"tab here"},
					[]string{"$ echo tab      here; printf '\\033[1m\\033[0m'", "tab here", "$"}},
				{"x='\x1b[31m'; echo ${#x}", true, 0, []string{"5"},
					[]string{"$ x='^[[31m'; echo ${#x}", "5", "$"}},
			} {
				var r drive.RunResult
				e.ok("run_command", map[string]any{"pane_id": p, "command": c.command, "suppress_history": !c.history}, &r)
				if deref(r.ExitStatus) != c.status || !slices.Equal(r.Output, c.output) || r.Truncated {
					t.Errorf("run_command(%q) = exit %v, output %q; want exit %d, output %q", c.command, deref(r.ExitStatus), r.Output, c.status, c.output)
				}
				want := c.screen
				if sh.name == "zsh" && !strings.HasSuffix(want[len(want)-1], "$") || sh.name == "zsh" && want[len(want)-1] != "$" {
					// zsh ends a line without a newline with its mark (%
					// or #, PROMPT_SP) and prints the prompt below.
					last := want[len(want)-1]
					want = append(slices.Clone(want[:len(want)-1]), strings.TrimSuffix(last, "$")+zshMark(), "$")
				}
				if got := screenLines(e.screen(p)); !slices.Equal(got, want) {
					t.Errorf("run_command(%q): the pane shows\n%s\nwant\n%s", c.command, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				// The shell's $? is the command's status.
				e.typeLine(p, "echo status=$?")
				if s := strings.Join(screenLines(e.screen(p)), "\n"); !strings.Contains(s, fmt.Sprintf("\nstatus=%d\n", c.status)) {
					t.Errorf("after run_command(%q): echo $? shows\n%s\nwant status=%d", c.command, s, c.status)
				}
				e.tmux("send-keys", "-t", p, "-l", "clear")
				e.tmux("send-keys", "-t", p, "Enter")
				e.waitScreen(p, "a clear screen", func(s string) bool { return s == "$" })
			}
		})
	}
}

// screenLines is a pane's screen as lines, right-trimmed (tmux 3.2a's -J
// keeps trailing blanks).
func screenLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(expandTabs(lines[i]), " ")
	}
	return lines
}

// expandTabs turns each tab of a captured row into the spaces to the next
// tab stop (every eight columns), as the terminal showed it: tmux 3.6 and
// later keep a tab the program printed as a tab in capture-pane.
func expandTabs(line string) string {
	if !strings.Contains(line, "\t") {
		return line
	}
	var b strings.Builder
	col := 0
	for _, r := range line {
		if r == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// zshMark is what zsh -f shows at the end of a line without a newline
// before its prompt: % for a user, # for root.
func zshMark() string {
	if os.Geteuid() == 0 {
		return "#"
	}
	return "%"
}

// TestRunCommandFiles: the files the typed line sources live in a
// directory of this user's alone, each is gone as soon as the shell read
// it (a command still running keeps none), the directory goes at Close,
// and without a place for files the typed line carries the end itself.
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
	var r drive.RunResult
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
	if f := files(); !r.TimedOut || len(f) != 0 {
		t.Errorf("a command that timed out: files %q, want none (a file goes when the shell reads it)", f)
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

// TestRunCommandWithoutPrompt: a shell that prints no prompt still ends
// each run (the wait for a prompt after the end marker is bounded).
func TestRunCommandWithoutPrompt(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.window("env PS1= sh")
	tmuxtest.WaitFor(t, 10*time.Second, "sh", func() bool {
		return e.tmux("display-message", "-p", "-t", p, "#{pane_current_command}") == "sh"
	})
	for _, c := range []string{"echo one", "echo two"} {
		var r drive.RunResult
		e.ok("run_command", map[string]any{"pane_id": p, "command": c}, &r)
		if want := strings.TrimPrefix(c, "echo "); !slices.Equal(r.Output, []string{want}) || deref(r.ExitStatus) != 0 {
			t.Errorf("run_command(%s) = %q, exit %v; want [%s], exit 0", c, r.Output, deref(r.ExitStatus), want)
		}
	}
}

// TestRunCommandWatcherViewNarrow: where the line run_command types wraps
// over rows (a long prompt, a narrow pane) and the screen scrolls under
// it (the prompt at the bottom), the pane still shows only the command
// after the prompt, its output and the next prompt, in its history too.
func TestRunCommandWatcherViewNarrow(t *testing.T) {
	const prompt = "a-long-prompt-for-wrapping $ "
	for _, sh := range testShells {
		t.Run(sh.name, func(t *testing.T) {
			requireShell(t, sh.name)
			e := newEnv(t, Mutating)
			p := e.window(strings.Replace(sh.cmd, "PS1='$ '", "PS1='"+prompt+"'", 1))
			// Narrowed at its prompt, not while it starts: a shell that
			// reads the width before it handles SIGWINCH keeps the old one
			// (cold9: zsh's PROMPT_SP mark then wrapped onto a line of its
			// own before every prompt).
			e.waitScreen(p, sh.name+"'s prompt", func(s string) bool { return strings.HasSuffix(s, strings.TrimSpace(prompt)) })
			e.tmux("resize-window", "-t", p, "-x", "34", "-y", "6")
			for i := range 8 { // the prompt at the bottom
				e.tmux("send-keys", "-t", p, "-l", fmt.Sprintf("echo fill%d", i))
				e.tmux("send-keys", "-t", p, "Enter")
			}
			e.waitScreen(p, "the fill", func(s string) bool {
				return strings.Contains(s, "fill7\n") && strings.HasSuffix(s, strings.TrimSpace(prompt))
			})
			var r drive.RunResult
			e.ok("run_command", map[string]any{"pane_id": p, "command": "echo hi; echo there"}, &r)
			if !slices.Equal(r.Output, []string{"hi", "there"}) || deref(r.ExitStatus) != 0 {
				t.Errorf("run_command = %q, exit %v; want [hi there], exit 0", r.Output, deref(r.ExitStatus))
			}
			all := screenLines(strings.TrimRight(e.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", p), "\n "))
			i := slices.Index(all, prompt+"echo hi; echo there")
			// (dash echoes keys typed ahead of its prompt before it: the
			// fill's lines may come in another order.)
			if i < 1 || !slices.Equal(all[i+1:], []string{"hi", "there", strings.TrimSpace(prompt)}) || !strings.HasSuffix(all[i-1], "fill7") {
				t.Errorf("the pane (history too) shows\n%s\nwant fill7, %q, hi, there, the prompt", strings.Join(all, "\n"), prompt+"echo hi; echo there")
			}
		})
	}
}

// TestRunCommandTypeahead: keys typed into the pane while a command runs
// (here a background job that reads none) reach the shell after it, as
// they would without run_command: the ending, which reads the terminal's
// answer to its barrier, types back what it read before the answer.
func TestRunCommandTypeahead(t *testing.T) {
	for _, sh := range testShells {
		t.Run(sh.name, func(t *testing.T) {
			requireShell(t, sh.name)
			e := newEnv(t, Mutating)
			p := e.prompt(sh)
			var started jobStarted
			e.ok("run_command", map[string]any{"pane_id": p, "command": "sleep 1; echo slept", "background": true}, &started)
			e.waitScreen(p, "the job to start", func(s string) bool { return strings.Contains(s, "$ sleep 1; echo slept") })
			e.tmux("send-keys", "-t", p, "-l", "echo typed-ahead")
			e.tmux("send-keys", "-t", p, "Enter")
			var j jobResult
			e.ok("get_job", map[string]any{"job_id": started.JobID, "timeout": 10}, &j)
			// The terminal echoes the keys while the job runs, as it
			// would without run_command: the output shows them.
			if j.State != jobrecord.Exited || deref(j.ExitStatus) != 0 || !slices.Equal(j.Output, []string{"echo typed-ahead", "slept"}) {
				t.Errorf("get_job = %s, exit %v, output %q; want exited 0 with the echo of the keys and slept", j.State, deref(j.ExitStatus), j.Output)
			}
			// dash has no line editor: the echo of the keys comes before
			// the prompt, their output after it.
			e.waitScreen(p, "the keys typed ahead to run", func(s string) bool {
				return slices.ContainsFunc(screenLines(s), func(l string) bool {
					return l == "typed-ahead" || l == "$ typed-ahead"
				})
			})
		})
	}
}
