package drive

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// What run_command types at a pane's prompt, and what the pane shows.
//
// A person watching the pane sees the command the agent ran, after the
// prompt, and its output, then the next prompt: nothing of ours stays on
// the screen, and the shell's $? is the command's status. Only sh-like
// shells (sh, dash, bash, zsh, ksh) read what is typed; fish and the
// others are refused before anything is typed (nonPOSIXShells).
//
// Nothing can run in a shell at its prompt without keys: the shell reads
// only its terminal. So run_command types one short line, which sources a
// file written for this command alone, in a directory only this user can
// enter:
//
//	 . /tmp/tmux-mcp-run-123/8c1f0a2b3d4e
//
// The line editor echoes it (readline, zle and dash's own terminal echo
// alike); the file's first lines move the cursor back over the echo,
// erase it, and print the command in its place, as if it had been typed
// (control characters as ^X), then remove the file. The echo shows for
// the moment between Enter and the shell reading the file (a few
// milliseconds; none of it is left on the screen or in its history). The
// file then runs the command through eval in a subshell of the pane's
// shell, so that its aliases, functions and directory apply, nothing it
// changes leaks, and a syntax error stays inside:
//
//	(eval 'make test')
//
// and ends with a subshell that prints nothing: it turns the terminal's
// echo off and asks it where the cursor is (DSR, ESC[6n). tmux answers
// once it has read every byte the command printed before, so the answer
// is a barrier: after it, tmux's grid holds all of the output. It then
// records the status and the cursor (history size, row, column, pane
// size) in a pane option of this run (@tmux_mcp_<nonce>, which tmux-mcp
// reads and removes), signals the run's wait-for channel, and exits with
// the command's status. Keys typed while the command ran, read with the
// answer, are typed back. run_command reads the output from the rows
// between the prompt (found by the anchor taken before typing, see
// screenAnchor, or by promptMark) and the recorded end.
//
// Per shell: bash's history gets the command (history -s replaces the
// line typed) unless suppress_history; zsh's gets it too (print -s), after
// the line typed; dash keeps none. suppress_history types a leading space,
// which bash drops with HISTCONTROL=ignorespace and zsh with
// HIST_IGNORE_SPACE. A prompt that redraws itself on Enter (a transient
// prompt) may leave part of the line typed, or lose part of itself: the
// erase counts on the prompt as it was. Where no file can be written, the
// line carries the command and the end itself, and the pane shows it.

// subshell returns a line that runs cmd through eval in a subshell, for a
// line typed: a command with a newline or another control character
// (which a line editor would take for a key) is decoded by printf %b, with
// "!" written as an escape too (bash and zsh expand history inside double
// quotes).
func subshell(cmd string) string {
	if !strings.ContainsFunc(cmd, isControl) {
		return "(eval " + shellquote.Quote(cmd) + ")"
	}
	return `(eval "$(printf %b ` + shellquote.Quote(escapeB(cmd)) + `)")`
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// escapeB writes cmd for printf %b without a control character or "!":
// those as octal escapes (newline and tab as \n and \t), a backslash
// doubled.
func escapeB(cmd string) string {
	var b strings.Builder
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case isControl(rune(c)) || c == '!':
			fmt.Fprintf(&b, `\0%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// display is cmd as the pane shows it after the prompt: its lines, the
// trailing newlines dropped, a control character but tab as ^X (as a line
// editor shows it; never sent raw to the terminal).
func display(cmd string) string {
	var b strings.Builder
	for _, r := range strings.TrimRight(cmd, "\r\n") {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == 0x7f:
			b.WriteString("^?")
		case r < 0x20:
			b.WriteByte('^')
			b.WriteRune(r + '@')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// displayLines is how many lines the command shows as, the prompt's
// among them.
func displayLines(cmd string) int { return strings.Count(display(cmd), "\n") + 1 }

// eraseEcho is the printf format that moves the cursor back over the echo
// of a line typed at column x of a pane width cells wide, once Enter has
// moved it to the start of the row below, and erases the echo: the rest
// of the prompt's row, and each row the line wrapped onto. The cursor ends
// where the line began. It never clears from the top left corner, which
// would push the screen into history. typed is how many cells the line
// takes; it must not end exactly at the right margin (see typedLine).
func eraseEcho(x, width, typed int) string {
	rows := (x+typed)/width + 1 // the rows the echo took, less none: it does not end at the margin
	col := "\\r"
	if x > 0 {
		col += fmt.Sprintf("\\033[%dC", x)
	}
	s := fmt.Sprintf("\\033[%dA%s\\033[K", rows, col)
	for range rows - 1 {
		s += "\\033[B\\033[2K"
	}
	if rows > 1 {
		s += fmt.Sprintf("\\033[%dA%s", rows-1, col)
	}
	return s
}

// runOption is the pane option a run's ending records its end in.
func (r *Run) option() string { return "@tmux_mcp_" + r.nonce }

// ending is the shell code that ends a run: a subshell, printing nothing,
// that takes the status of the command before it, waits until tmux has
// read all the output (the DSR barrier), records the status and the
// cursor in the run's pane option, signals the run's channel, types back
// keys read with the answer (out of any mode, as Server.TypeKeys types),
// and exits with the status. typed is for the
// line typed where no file can be written.
func (r *Run) ending(tmuxBin string, typed bool) string {
	tm := shellquote.Quote(tmuxBin) + " -S " + shellquote.Quote(r.srv.Socket().ResolvedPath())
	esc := "e='\x1b'" // in a file: the byte itself, no process to make it
	if typed {
		esc = `e=$(printf '\033')` // a line editor would take the byte for a key
	}
	return `(s=$?; ` + esc + `; a=; t=$(stty -g 2>/dev/null) && stty -echo -icanon min 0 time 20 2>/dev/null && ` +
		`{ printf '\033[6n'; if [ -n "${BASH_VERSION-}${ZSH_VERSION-}" ]; then ` +
		`while IFS= read -r -d R -t 2 c; do a=$a${c}R; case $a in *"${e}["*R) break;; esac; done; ` +
		`else while c=$(dd bs=64 count=1 2>/dev/null; echo .) && c=${c%.} && [ -n "$c" ]; do a=$a$c; ` +
		`case $a in *"${e}["*R*) break;; esac; done; fi; stty "$t"; }; ` +
		tm + ` set-option -p -F -t ` + string(r.pane) + ` ` + r.option() +
		` "$s #{history_size} #{cursor_y} #{cursor_x} #{pane_width} #{pane_height}" \; wait-for -S ` + r.channel() + ` 2>/dev/null; ` +
		`k=${a%"${e}["*}; [ -n "$k" ] && ` + tm + ` copy-mode -q -t ` + string(r.pane) + ` \; send-keys -t ` + string(r.pane) + ` -l -- "$k" 2>/dev/null; exit $s)`
}

// history is the shell code that puts cmd in the shell's history in place
// of the line typed: bash replaces that line (history -s), zsh adds after
// it (print -s); other shells keep none of ours.
func history(cmd string) string {
	q := shellquote.Quote(cmd)
	return `if [ -n "${BASH_VERSION-}" ]; then history -s -- ` + q + ` 2>/dev/null; ` +
		`elif [ -n "${ZSH_VERSION-}" ]; then print -s -- ` + q + ` 2>/dev/null; fi`
}

// typedLine is the line that sources path (after lead, a blank where the
// history is to skip it), typed at column x of a pane width cells wide: a
// blank is added where the line would end exactly at the right margin (a
// line editor then wraps it in its own way), so that eraseEcho can count
// its rows. It returns the line and its cells.
func typedLine(lead, path string, x, width int) (string, int) {
	line := lead + ". " + shellquote.Quote(path)
	cells := utf8.RuneCountInString(line)
	if width > 0 && (x+cells)%width == 0 {
		line, cells = line+" ", cells+1
	}
	return line, cells
}

// script returns the line to type at base's prompt for cmd (with a
// leading blank when noHistory) and writes the file it sources into
// files; r.file names that file and r.lines the lines the command shows
// as. Where no file can be written, the line carries the command and the
// ending itself.
func (r *Run) script(files *Files, tmuxBin, cmd string, noHistory bool, base tmux.Pane) string {
	lead := ""
	if noHistory {
		lead = " "
	}
	var typed string
	path, err := files.write(r.nonce, func(path string) string {
		line, cells := typedLine(lead, path, base.CursorX, base.Width)
		typed = line
		var b strings.Builder
		fmt.Fprintf(&b, "printf '%s'\nprintf '%%s\\n' %s\n", eraseEcho(base.CursorX, base.Width, cells), shellquote.Quote(display(cmd)))
		b.WriteString("command rm -f -- " + shellquote.Quote(path) + "\n")
		if !noHistory {
			b.WriteString(history(cmd) + "\n")
		}
		b.WriteString("(eval " + shellquote.Quote(cmd) + ")\n" + r.ending(tmuxBin, false) + "\n")
		return b.String()
	})
	if err != nil {
		r.lines = 1
		return lead + subshell(cmd) + "; " + r.ending(tmuxBin, true)
	}
	r.file, r.lines = path, displayLines(cmd)
	return typed
}

// Files is the private directory of run_command's files: made on first
// use (mode 0700, a new name, so this user's alone), made again if
// something removed it, and removed by close.
type Files struct {
	mu sync.Mutex
	// base is where the directory is made; "" is the system's temporary
	// directory.
	base string
	dir  string
}

// write creates the file name in the directory (never over an existing
// one) with the content for its path, readable by this user only, and
// returns its path.
func (f *Files) write(name string, content func(path string) string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for range 2 {
		if f.dir == "" {
			dir, err := os.MkdirTemp(f.base, "tmux-mcp-run-")
			if err != nil {
				return "", fmt.Errorf("tools: run_command's directory: %w", err)
			}
			f.dir = dir
		}
		path := filepath.Join(f.dir, name)
		fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrNotExist) {
			f.dir = "" // removed under us: make a new one
			continue
		}
		if err != nil {
			return "", fmt.Errorf("tools: run_command's file: %w", err)
		}
		_, werr := fh.WriteString(content(path))
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(path) //nolint:errcheck // best effort after a failed write
			return "", fmt.Errorf("tools: run_command's file: %w", werr)
		}
		return path, nil
	}
	return "", errors.New("tools: run_command's directory keeps disappearing")
}

// remove deletes a file that write made.
func (f *Files) remove(path string) {
	if path != "" {
		os.Remove(path) //nolint:errcheck // gone already is fine
	}
}

// Close removes the directory and what is left in it (the files of
// commands that timed out and have not ended).
func (f *Files) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir == "" {
		return nil
	}
	err := os.RemoveAll(f.dir)
	f.dir = ""
	return err
}

// CloseIfEmpty removes the directory if no file is left in it (the files
// of jobs that run on stay).
func (f *Files) CloseIfEmpty() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir != "" && os.Remove(f.dir) == nil {
		f.dir = ""
	}
}

// NewFiles returns the files of runs, in a directory made under base
// ("": the system's temporary directory) on first use.
func NewFiles(base string) *Files { return &Files{base: base} }
