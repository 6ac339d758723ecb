package codec

import (
	"bytes"
	"fmt"
	"strings"
)

// Records: how tmux-mcp reads several format variables in one tmux
// command, whatever the tmux version, the client's locale or the bytes in
// the values.
//
// Values read back from tmux are untrusted (a pane's program sets its
// title; a directory name is any bytes but NUL and '/'), and what tmux
// does with the bytes of a format's output differs:
//   - a client that tmux does not believe speaks UTF-8 gets every control
//     character and every non-ASCII character replaced by '_'
//     (utf8_sanitize); tmux-mcp passes -u to every tmux it runs, so this
//     never happens to it (see tmux.Exec);
//   - tmux 3.4 and 3.5a print command output through
//     utf8_stravisx(VIS_OCTAL|VIS_CSTYLE|VIS_NOSLASH): control characters
//     and invalid UTF-8 come out as "\ooo" or C escapes ("\r"), while a
//     backslash stays a lone backslash;
//   - the other versions print the bytes as they are.
//
// So no byte can serve as a separator by itself: a value may hold it, or
// the version may rewrite it. Instead every value goes through tmux's own
// shell quoting, #{q:name}, which puts a backslash before each of
// |&;<>()$`\"'*?[# =% (the same set in 3.2a to 3.7c). A value's own '|',
// '>' and '%' then always come out escaped, so an unescaped '|' ends a
// field and an unescaped '>' ends a record; and no line of a record can
// begin with '%', which keeps a control-mode reply from being ended early
// by a forged "%end". (Not ';': a command-line argument that ends in ';'
// ends the command in tmux's argument parser.) Decoding reads "\" + one of
// q's characters as that character, "\" + octal digits and "\" + a letter
// as what vis encoded, so the output of every version decodes to the
// value's bytes. One more
// rewrite of 3.4/3.5a: a backslash before a '$' that a letter, '_' or '{'
// follows; since q escapes every '$', a backslash, a backslash and a '$'
// can only mean '$'.
const (
	recordFieldSep = '|'
	recordEnd      = '>'
)

// RecordFormat returns the format that prints the values of vars (format
// variable or option names, such as "pane_id" or "history-limit") as one
// record. An entry that already holds a modifier (a ':', as in "S:x") is
// expanded as #{entry} without quoting: its output must consist of letters,
// digits and '-' only, or the record will not parse.
func RecordFormat(vars ...string) string {
	var b strings.Builder
	for i, v := range vars {
		if i > 0 {
			b.WriteByte(recordFieldSep)
		}
		if strings.Contains(v, ":") {
			b.WriteString("#{" + v + "}")
		} else {
			b.WriteString("#{q:" + v + "}")
		}
	}
	b.WriteByte(recordEnd)
	return b.String()
}

// ParseRecords decodes the output of a command run with a RecordFormat of
// n variables: one record per expansion, each followed by tmux's newline.
// It fails on a record without n fields (n <= 0: any number, for output
// that mixes kinds of records) or without its end; nothing in a value can
// make it split or join records.
func ParseRecords(out []byte, n int) ([][]string, error) {
	var recs [][]string
	for len(out) > 0 {
		rec, rest, err := parseRecord(out, n)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
		// tmux ends each record's line with one newline (a value may
		// begin with another).
		if len(rest) > 0 && rest[0] != '\n' {
			return nil, fmt.Errorf("tmux: parse: %q after a record's end", truncate(rest, 20))
		}
		out = bytes.TrimPrefix(rest, []byte("\n"))
	}
	return recs, nil
}

// ParseRecord decodes the output of a command that prints one record of
// n fields (display-message -p with a RecordFormat).
func ParseRecord(out []byte, n int) ([]string, error) {
	recs, err := ParseRecords(out, n)
	if err != nil {
		return nil, err
	}
	if len(recs) != 1 {
		return nil, fmt.Errorf("tmux: parse: %d records, want 1", len(recs))
	}
	return recs[0], nil
}

// parseRecord decodes one record from the start of b and returns its
// fields and what follows its end.
func parseRecord(b []byte, n int) ([]string, []byte, error) {
	fields := make([]string, 0, n)
	var cur []byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case recordFieldSep:
			fields = append(fields, string(cur))
			cur = cur[:0]
			continue
		case recordEnd:
			fields = append(fields, string(cur))
			if n > 0 && len(fields) != n {
				return nil, nil, fmt.Errorf("tmux: parse: record has %d fields, want %d", len(fields), n)
			}
			return fields, b[i+1:], nil
		case '\\':
			if i+1 == len(b) {
				return nil, nil, fmt.Errorf("tmux: parse: record ends inside an escape")
			}
			c, i = decodeEscape(b, i)
		}
		cur = append(cur, c)
	}
	return nil, nil, fmt.Errorf("tmux: parse: record without end marker: %q", truncate(b, 80))
}

// decodeEscape decodes the escape whose backslash is at b[i] (b[i+1]
// exists), and returns the byte and the index of the escape's last
// character. It serves every output whose values tmux escaped itself
// (#{q:} records, show-environment -s), neither of which leaves a bare '$'.
func decodeEscape(b []byte, i int) (byte, int) {
	if i+2 < len(b) && b[i+1] == '\\' && b[i+2] == '$' {
		// The value's escaped '$' ("\$"), and 3.4's utf8_strvis put
		// another backslash before it (before a '$' followed by a letter,
		// '_' or '{'). It cannot be an escaped backslash and a bare '$'.
		return '$', i + 2
	}
	return unescapeAt(b, i+1)
}

// unescapeAt decodes the escape whose first character (after the
// backslash) is at b[i], and returns the byte and the index of the
// escape's last character.
func unescapeAt(b []byte, i int) (byte, int) {
	c := b[i]
	switch {
	case c >= '0' && c <= '7':
		// vis: up to three octal digits (VIS_OCTAL writes three).
		v, j := 0, i
		for j < len(b) && j < i+3 && b[j] >= '0' && b[j] <= '7' {
			v = v*8 + int(b[j]-'0')
			j++
		}
		return byte(v), j - 1
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		// vis C style: q never escapes a letter.
		if e, ok := cEscapes[c]; ok {
			return e, i
		}
		return c, i
	default:
		// q: the character itself.
		return c, i
	}
}

// cEscapes are vis's VIS_CSTYLE escapes.
var cEscapes = map[byte]byte{
	'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
	's': ' ', 'e': 0x1b, 'E': 0x1b,
}

// truncate is at most the first n bytes of b, for an error message.
func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
