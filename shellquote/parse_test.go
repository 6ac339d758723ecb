package shellquote

import (
	"errors"
	"fmt"
	"strings"
)

// Two strict word parsers, one per quoting dialect the package writes for:
// sh's (POSIX, and bash, zsh, ksh, csh with their few extras) and fish's.
// Each reads a command line of words separated by spaces and decodes
// quotes and escapes; anything a shell would not take literally (an
// unquoted "$", "*", "{", "!", newline, a word starting with "=", "%", "~"
// or "#", a double quote, an escape the dialect does not know) is an
// error, so a quoting that leans on a shell's leniency fails here too.

// bareBytes are the bytes literal unquoted in sh, bash, zsh, ksh, fish
// and csh, anywhere in a word but its start (written out here, not taken
// from the code under test).
const bareBytes = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-"

// errNotLiteral is the error of a byte a shell would not take literally.
var errNotLiteral = errors.New("not literal")

// posixWords parses line as sh does, for the subset of sh that keeps
// text literal: single quotes (everything up to the next "'" is
// literal), a backslash outside them (the next byte is literal; a
// backslash and newline are removed), and bare bytes literal in every
// shell.
func posixWords(line string) ([]string, error) {
	return words(line, func(b *strings.Builder, s string, i int) (int, error) {
		switch s[i] {
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return 0, errors.New("unterminated single quote")
			}
			b.WriteString(s[i+1 : i+1+end])
			return i + end + 2, nil
		case '\\':
			if i+1 == len(s) {
				return 0, errors.New("backslash at the end")
			}
			if s[i+1] != '\n' {
				b.WriteByte(s[i+1])
			}
			return i + 2, nil
		}
		return 0, errNotLiteral
	})
}

// fishWords parses line as fish does: inside single quotes \' and \\ are
// escapes (any other backslash is literal); outside them the package
// writes only \' and \\, and any other escape (fish has many: \n, \x41,
// \$ ...) is an error here.
func fishWords(line string) ([]string, error) {
	return words(line, func(b *strings.Builder, s string, i int) (int, error) {
		switch s[i] {
		case '\'':
			for i++; ; i++ {
				switch {
				case i >= len(s):
					return 0, errors.New("unterminated single quote")
				case s[i] == '\'':
					return i + 1, nil
				case s[i] == '\\' && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '\\'):
					i++
				}
				b.WriteByte(s[i])
			}
		case '\\':
			if i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '\\') {
				b.WriteByte(s[i+1])
				return i + 2, nil
			}
			return 0, errors.New("an escape other than \\' or \\\\")
		}
		return 0, errNotLiteral
	})
}

// words splits line into words at spaces; quoted reads a quote or escape
// at s[i] into b and returns the index after it, or errNotLiteral for a
// byte that is not one. A bare byte must be one of bareBytes.
func words(line string, quoted func(b *strings.Builder, s string, i int) (int, error)) ([]string, error) {
	var out []string
	i := 0
	for {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if i == len(line) {
			return out, nil
		}
		var b strings.Builder
		start := i
		for i < len(line) && line[i] != ' ' {
			next, err := quoted(&b, line, i)
			switch {
			case err == nil:
				i = next
				continue
			case !errors.Is(err, errNotLiteral):
				return nil, fmt.Errorf("at %d: %w", i, err)
			}
			c := line[i]
			if strings.IndexByte(bareBytes, c) < 0 || i == start && strings.IndexByte("=%~#", c) >= 0 {
				return nil, fmt.Errorf("at %d: %q is %w", i, c, errNotLiteral)
			}
			b.WriteByte(c)
			i++
		}
		out = append(out, b.String())
	}
}
