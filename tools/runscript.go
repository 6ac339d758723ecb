package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// What run_command types at a pane's prompt.
//
// One line, whatever the command: a newline in the typed text would make a
// shell such as dash print continuation prompts, and the pane would show
// the wrapper. The command runs in a subshell of the pane's shell through
// eval, so that its aliases, functions and directory apply, nothing it
// changes leaks, and a syntax error or a trailing comment stays inside:
//
//	(eval 'make test'); . /tmp/tmux-mcp-run-123/8c1f0a2b3d4e
//
// A command with a newline or another control character (which a line
// editor would take for a key) is decoded by printf %b, with "!" written
// as an escape too (bash and zsh expand history inside double quotes):
//
//	(eval "$(printf %b 'cd /src\nmake test')"); . /tmp/tmux-mcp-run-123/8c1f0a2b3d4e
//
// The sourced file, written for this command alone in a directory only
// this user can enter, prints the end marker with the subshell's status
// and signals the command's wait-for channel; run_command removes it once
// the channel was signalled. A command whose line would be longer than
// maxTypedCommand (a terminal in line mode, as dash reads, holds 4,095
// bytes) goes into the file as well, which then removes itself first,
// before the command runs, and the pane shows only ". <file>". Where no
// file can be written, the line carries the end itself.

// maxTypedCommand is the longest subshell line typed; longer commands are
// sourced from a file.
const maxTypedCommand = 2048

// subshell returns a line that runs cmd through eval in a subshell.
func subshell(cmd string) string {
	if !strings.ContainsFunc(cmd, isControl) {
		return "(eval " + shQuote(cmd) + ")"
	}
	return `(eval "$(printf %b ` + shQuote(escapeB(cmd)) + `)")`
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

// endPrefix begins the line the shell prints after the command, which
// ends with its exit status: "[tmux-mcp <nonce>] exit 0".
func endPrefix(nonce string) string { return "[tmux-mcp " + nonce + "] exit " }

// ending is the shell code that prints the end marker with the status of
// the command before it and signals the run's channel. It never holds the
// marker itself (the line a shell echoes must not read as one).
func (r *run) ending(tmuxBin string) string {
	return fmt.Sprintf(`printf '[tmux-mcp %%s] exit %%s\n' %s "$?"; %s -S %s wait-for -S %s`,
		r.nonce, shQuote(tmuxBin), shQuote(r.srv.Socket().ResolvedPath()), r.channel())
}

// script returns the line to type for cmd (without the leading space of
// suppress_history) and writes the file it sources, if any, into files;
// r.file names that file.
func (r *run) script(files *runFiles, tmuxBin, cmd string) string {
	sub, end := subshell(cmd), r.ending(tmuxBin)
	if len(sub) <= maxTypedCommand {
		if path, err := files.write(r.nonce, func(string) string { return end + "\n" }); err == nil {
			r.file = path
			return sub + "; . " + shWord(path)
		}
		return sub + "; " + end
	}
	path, err := files.write(r.nonce, func(path string) string {
		return "command rm -f -- " + shQuote(path) + "\n" + sub + "\n" + end + "\n"
	})
	if err != nil {
		return sub + "; " + end
	}
	r.file = path
	return ". " + shWord(path)
}

// runFiles is the private directory of run_command's files: made on first
// use (mode 0700, a new name, so this user's alone), made again if
// something removed it, and removed by close.
type runFiles struct {
	mu sync.Mutex
	// base is where the directory is made; "" is the system's temporary
	// directory.
	base string
	dir  string
}

// write creates the file name in the directory (never over an existing
// one) with the content for its path, readable by this user only, and
// returns its path.
func (f *runFiles) write(name string, content func(path string) string) (string, error) {
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
func (f *runFiles) remove(path string) {
	if path != "" {
		os.Remove(path) //nolint:errcheck // gone already is fine
	}
}

// close removes the directory and what is left in it (the files of
// commands that timed out and have not ended).
func (f *runFiles) close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir == "" {
		return nil
	}
	err := os.RemoveAll(f.dir)
	f.dir = ""
	return err
}

// shWord is s as one shell word: as it is when it needs no quotes.
func shWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+,:@%") == "" {
		return s
	}
	return shQuote(s)
}
