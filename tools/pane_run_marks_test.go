package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/drive"
)

// markingShell returns the command line of an interactive shell, with no
// start-up files of the user's, that prints the OSC 133 marks with the
// few lines of integration docs/tools.md gives: A and B around the prompt
// "$ ", C before a command runs, D with its status after it.
func markingShell(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(file, text string) string {
		t.Helper()
		p := filepath.Join(dir, file)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	switch name {
	case "bash":
		rc := write("bashrc", `PS1='\[\e]133;A\a\]$ \[\e]133;B\a\]'
PS0='\[\e]133;C\a\]'
PROMPT_COMMAND='printf "\033]133;D;%s\007" "$?"'
HISTFILE=/dev/null
`)
		return "bash --noprofile --rcfile " + rc
	case "zsh":
		write(".zshrc", `PS1=$'%{\e]133;A\a%}$ %{\e]133;B\a%}'
precmd() { printf '\033]133;D;%s\007' "$?"; }
preexec() { printf '\033]133;C\007'; }
PROMPT_EOL_MARK=''
`)
		return "env ZDOTDIR=" + dir + " zsh --no-globalrcs"
	case "fish":
		init := write("init.fish", `function fish_prompt; printf '$ '; end
function fish_greeting; end
function __mark_prompt --on-event fish_prompt; printf '\e]133;A\a'; end
function __mark_preexec --on-event fish_preexec; printf '\e]133;C\a'; end
function __mark_postexec --on-event fish_postexec; printf '\e]133;D;%s\a' $status; end
`)
		return "fish --no-config --private -C 'source " + init + "'"
	}
	t.Fatalf("no marking %s", name)
	return ""
}

func TestRunCommandMarks(t *testing.T) {
	for _, name := range []string{"bash", "zsh", "fish"} {
		t.Run(name, func(t *testing.T) {
			requireShell(t, name)
			e := newEnv(t, Mutating)
			if e.caps().DeadPaneOutputCrash {
				t.Skip("no watcher on this tmux (3.2a): marks are read from watchers only")
			}
			p := e.window(markingShell(t, name))
			e.waitScreen(p, name+"'s prompt", func(s string) bool { return strings.HasSuffix(s, "$") })
			// The session's watcher begins with the first read: the marks of
			// the prompts after it are read.
			e.ok("capture_pane", map[string]any{"pane_id": p}, nil)
			e.typeLine(p, "")
			tests := []struct {
				command string
				status  int
				output  []string
			}{
				{`printf 'RUN_OK\n'`, 0, []string{"RUN_OK"}},
				{`sh -c 'echo out; exit 7'`, 7, []string{"out"}},
				{`sh -c 'exit 255'`, 255, []string{}},
				{`true`, 0, []string{}},
				{`printf 'a\nb'`, 0, []string{"a", "b"}},
				{`printf '%0300d\n' 7`, 0, []string{strings.Repeat("0", 299) + "7"}},
				// Typed as is, not in a subshell: the shell's state changes.
				{`cd /`, 0, []string{}},
				{`pwd`, 0, []string{"/"}},
				// Marks a command prints do not end it: the shell must be back
				// in the foreground.
				{`printf '\033]133;D;0\007\033]133;A\007$ \033]133;B\007'; sleep 0.3; echo real; sh -c 'exit 3'`, 3,
					[]string{"$ real"}},
			}
			for _, tt := range tests {
				var r drive.RunResult
				e.ok("run_command", map[string]any{"pane_id": p, "command": tt.command}, &r)
				if r.ExitStatus == nil || *r.ExitStatus != tt.status || r.TimedOut || !slices.Equal(r.Output, tt.output) || r.Truncated {
					t.Errorf("run_command(%q) = %+v (exit %v), want exit %d, output %q", tt.command, r, deref(r.ExitStatus), tt.status, tt.output)
				}
			}
			// The pane shows what was typed and printed, nothing of ours.
			if s := e.screen(p); strings.Contains(s, "tmux-mcp") || strings.Contains(s, "tmux_mcp") || !strings.Contains(s, "$  printf 'RUN_OK\\n'\nRUN_OK\n") {
				t.Errorf("the pane shows more than the commands typed:\n%s", s)
			}
		})
	}
}
