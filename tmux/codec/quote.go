package codec

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Quoting rules, from cmd-parse.y and checked against tmux 3.3a (package
// tmux's quote_roundtrip_test.go and FuzzQuote round-trip every rule
// through a real server):
//
//   - Outside quotes the parser ends a word at space, tab, ";" or "}",
//     treats "#" at the start of a word as a comment, "%" at the start of a
//     word as a directive (%if, %hidden, ...) unless the word is all "%" and
//     digits, "{" at the start of a word as a block, "~" at the start of a
//     word (or just after a closing quote) as the home directory, and expands
//     "$VAR", "${VAR}" and "\" escapes.
//   - Inside single quotes every byte is literal except "'" itself; a raw
//     newline would end the control-mode line, so it cannot appear.
//   - Inside double quotes "\" escapes ("\n", "\t", "\\", "\"", "\$", "\~",
//     and "\ooo" octal, which yields any byte, including bytes that are not
//     UTF-8) and "$VAR" / "${VAR}" / a leading "~" are processed; "#", ";",
//     "{", "}", "'" and "%" are literal. "#{...}" formats are not expanded by
//     the parser.
//   - A NUL byte cannot be passed at all: arguments are C strings ("\000"
//     ends the argument early). ValidArg rejects it.
//   - A first word of the form NAME=VALUE is an environment assignment, not a
//     command, whether or not it is quoted, and runs no command and prints no
//     block. The first argument must be a command name (ValidCommandName).
//
// So: a word made only of [A-Za-z0-9_./:,+@-] goes bare; a word of printable
// UTF-8 without "'" goes in single quotes; anything else goes in double
// quotes with "\", "\"", "$" and "~" escaped and control characters, DEL, C1
// controls and bytes that are not valid UTF-8 written as "\ooo".

// Quote turns an argv into one control-mode command line (no trailing
// newline) such that tmux's parser yields exactly these arguments and runs
// exactly one command.
//
// args[0] must be a command name and no argument may contain a NUL byte
// (see ValidArg); tmux.Control.Run checks both. An empty argument becomes a pair of single quotes.
// A leading "-" is not quoting's concern: put "--" before an argument that
// could be taken for a flag.
func Quote(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		quoteArg(&b, a)
	}
	return b.String()
}

func quoteArg(b *strings.Builder, s string) {
	switch {
	case s == "":
		b.WriteString("''")
	case isBare(s):
		b.WriteString(s)
	case singleQuotable(s):
		b.WriteByte('\'')
		b.WriteString(s)
		b.WriteByte('\'')
	default:
		doubleQuote(b, s)
	}
}

// isBare reports whether s needs no quotes at all.
func isBare(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_', c == '.', c == '/', c == ':', c == ',', c == '+', c == '@', c == '-':
		default:
			return false
		}
	}
	return true
}

// singleQuotable reports whether s can go between single quotes: printable
// UTF-8 without a single quote.
func singleQuotable(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\'' || !printableRune(r, size) {
			return false
		}
		i += size
	}
	return true
}

// printableRune reports whether a decoded rune can be written raw: valid
// UTF-8 and not a C0 control, DEL or C1 control.
func printableRune(r rune, size int) bool {
	if r == utf8.RuneError && size <= 1 {
		return false
	}
	return r >= 0x20 && (r < 0x7f || r > 0x9f)
}

func doubleQuote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\' || r == '"' || r == '$' || r == '~':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case printableRune(r, size):
			b.WriteString(s[i : i+size])
		default:
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(b, "\\%03o", c)
			}
		}
		i += size
	}
	b.WriteByte('"')
}

// ValidArg reports whether s can be passed to tmux as one argument over
// control mode. The only thing that cannot is a NUL byte: tmux arguments are
// C strings.
func ValidArg(s string) error {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fmt.Errorf("tmux: argument contains a NUL byte at offset %d: tmux arguments are C strings", i)
	}
	return nil
}

// ValidCommandName reports whether name can be the first word of a control
// line: a tmux command name or alias (lower-case letters and "-"). Anything
// else could parse as an assignment (NAME=VALUE runs nothing and prints no
// block, which would desynchronise the FIFO), a directive or a comment.
func ValidCommandName(name string) error {
	if name == "" {
		return errors.New("tmux: empty command name")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c < 'a' || c > 'z') && c != '-' {
			return fmt.Errorf("tmux: invalid command name %q: want lower-case letters and -", name)
		}
	}
	return nil
}
