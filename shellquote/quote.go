// Package shellquote writes strings as the words of a shell command line:
// one rule for every command line tmux-mcp writes (the remedies of the
// crash report, the command a host's login shell runs, the line a restore
// types into a pane's shell, what run_command sources), held by a fuzz
// test (FuzzQuote) and checked under sh, dash, bash, zsh, fish and tcsh.
//
// The rule: a word is left bare when it is not empty, every byte is one of
// A-Z a-z 0-9 _ @ % + = : , . / -, and it starts with neither "=" (zsh
// expands =cmd to a path, csh =N to the directory stack) nor "%" (fish
// expands %self to its PID). Any other word is written in single quotes,
// each "'" outside them as \', and so is each "\" that would stand before
// a "'" or another "\" there, as \\:
//
//	it's a\b  ->  'it'\''s a\b'
//	a\\b'\    ->  'a'\\'\b'\'\\
//
// Single quotes keep every other byte literal in POSIX sh, bash, zsh and
// ksh. fish reads \' and \\ as escapes even inside single quotes: with
// neither there, it reads every word as sh does. csh and tcsh do too, but
// for two bytes: "!" (history, even in single quotes) and newline (which
// ends a quoted word); a caller whose line a csh may read keeps those out.
// A NUL byte cannot be part of a word (the arguments of a process are C
// strings): callers refuse it before.
package shellquote

import "strings"

// Quote returns s as one word of a shell command line.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if bare(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	open := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'', c == '\\' && (i+1 == len(s) || s[i+1] == '\'' || s[i+1] == '\\'):
			if open {
				b.WriteByte('\'')
				open = false
			}
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			if !open {
				b.WriteByte('\'')
				open = true
			}
			b.WriteByte(c)
		}
	}
	if open {
		b.WriteByte('\'')
	}
	return b.String()
}

// Join returns argv as a shell command line: each argument quoted with
// Quote, separated by spaces.
func Join(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = Quote(a)
	}
	return strings.Join(parts, " ")
}

// bare reports whether s can stand unquoted (see the package comment).
func bare(s string) bool {
	if s[0] == '=' || s[0] == '%' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !safe(s[i]) {
			return false
		}
	}
	return true
}

// safe reports whether c is literal unquoted in every shell the package
// writes for, wherever it stands in a word but its first byte.
func safe(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("_@%+=:,./-", c) >= 0
}
