package drive

import (
	"os/exec"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
)

func TestSubshell(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{"make test", `(eval 'make test')`},
		{`echo 'a' "$HOME" # c`, `(eval 'echo '\''a'\'' "$HOME" # c')`},
		{"echo \"hi!\"", `(eval 'echo "hi!"')`},
		{"cd src\nmake test", `(eval "$(printf %b 'cd src\nmake test')")`},
		{"printf 'a\\tb'\n\techo \"!\"\x1b", `(eval "$(printf %b 'printf '\''a'\\'\tb'\''\n\techo "\0041"\0033')")`},
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
			out, err := exec.Command(sh, "-c", "printf %b "+shellquote.Quote(escapeB(cmd))).Output()
			if err != nil || string(out) != cmd {
				t.Errorf("%s: printf %%b %s = %q (%v), want %q", sh, shellquote.Quote(escapeB(cmd)), out, err, cmd)
			}
		}
	}
}

func TestDisplay(t *testing.T) {
	tests := []struct {
		cmd, want string
		lines     int
	}{
		{"echo hi", "echo hi", 1},
		{"echo a\necho b\n\n", "echo a\necho b", 2},
		{"echo \x1b[1m\tx\x7f\r", "echo ^[[1m\tx^?", 1},
		{"printf 'ü€'", "printf 'ü€'", 1},
	}
	for _, tt := range tests {
		if got, n := display(tt.cmd), displayLines(tt.cmd); got != tt.want || n != tt.lines {
			t.Errorf("display(%q) = %q, %d lines; want %q, %d", tt.cmd, got, n, tt.want, tt.lines)
		}
	}
}

// TestTypedLine: the line typed never ends exactly at the right margin
// (eraseEcho counts its rows), and eraseEcho goes back over every row it
// took.
func TestTypedLine(t *testing.T) {
	tests := []struct {
		lead, path string
		x, width   int
		want       string
		erase      string
	}{
		{" ", "/tmp/r/ab", 2, 80, " . /tmp/r/ab", `\033[1A\r\033[2C\033[K`},
		{"", "/tmp/r/ab", 0, 11, ". /tmp/r/ab ", `\033[2A\r\033[K\033[B\033[2K\033[1A\r`},
		{"", "/tmp/r/ab", 5, 10, ". /tmp/r/ab", `\033[2A\r\033[5C\033[K\033[B\033[2K\033[1A\r\033[5C`},
		{"", "/tmp/a b/x", 0, 80, ". '/tmp/a b/x'", `\033[1A\r\033[K`},
	}
	for _, tt := range tests {
		line, cells := typedLine(tt.lead, tt.path, tt.x, tt.width)
		if line != tt.want || (tt.x+cells)%tt.width == 0 {
			t.Errorf("typedLine(%q, %q, %d, %d) = %q, %d cells; want %q, not ending at the margin", tt.lead, tt.path, tt.x, tt.width, line, cells, tt.want)
		}
		if got := eraseEcho(tt.x, tt.width, cells); got != tt.erase {
			t.Errorf("eraseEcho(%d, %d, %d) = %s, want %s", tt.x, tt.width, cells, got, tt.erase)
		}
	}
}
