package codec

import "bytes"

// UnescapeBuffer undoes the escaping show-buffer applies in control mode
// (VIS_OCTAL|VIS_CSTYLE|VIS_TAB: "\\" for a backslash, "\t", C escapes,
// "\ooo" octal).
//
// What tmux 3.3a writes, measured for every byte value (see package
// tmux's showbuffer_test.go): "\\" for a backslash, "\$" for "$", "\0" for NUL ("\000"
// when an octal digit follows), "\a" "\b" "\t" "\v" "\f" "\r" for 0x07-0x0d
// except the newline, which stays raw, "\ooo" for the other bytes below 0x20,
// for 0x7f, and for every byte that is not part of a printable UTF-8
// character; printable ASCII and valid printable UTF-8 stay raw.
//
// b is the escaped data only. Over control mode, Run("show-buffer") returns
// the escaped data followed by one "\n" that control mode adds (a buffer
// "x" comes back as "x\n", a buffer "x\n" as "x\n\n"): strip that one newline
// before or after unescaping. Unknown escapes are kept as they are.
func UnescapeBuffer(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 == len(b) {
			out = append(out, c)
			continue
		}
		n := b[i+1]
		if n >= '0' && n <= '3' && i+3 < len(b) && isOctal3(b[i+1:i+4]) {
			out = append(out, octalByte(b[i+1:i+4]))
			i += 3
			continue
		}
		if d, ok := cEscape(n); ok {
			out = append(out, d)
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}

// cEscape returns the byte that a backslash followed by n stands for, for
// the single-character escapes vis(3) writes with VIS_CSTYLE (and "\$",
// which tmux 3.3a writes for a dollar sign).
func cEscape(n byte) (byte, bool) {
	switch n {
	case '\\', '$', '"':
		return n, true
	case '0':
		return 0, true
	case 'a':
		return '\a', true
	case 'b':
		return '\b', true
	case 't':
		return '\t', true
	case 'n':
		return '\n', true
	case 'v':
		return '\v', true
	case 'f':
		return '\f', true
	case 'r':
		return '\r', true
	case 's':
		return ' ', true
	case 'E':
		return 0x1b, true
	}
	return 0, false
}

// UnescapeStored undoes the escaping tmux applies when it stores a session
// or window name (every version) or a pane title
// (tmux.Capabilities.TitlesEscaped): vis(3)
// with VIS_OCTAL|VIS_CSTYLE|VIS_TAB|VIS_NL ("\\" for a backslash, "\t",
// "\n", "\ooo"; and "\$" for a '$' before a letter, '_' or '{' up to 3.4).
// Those are the escapes show-buffer writes, so UnescapeBuffer decodes
// them. tmux escapes the result again, to s: to set a title that tmux
// reports as s, set UnescapeStored(s).
func UnescapeStored(s string) string {
	return string(UnescapeBuffer([]byte(s)))
}

// UnescapeOutput decodes the data of an %output or %extended-output line:
// tmux writes bytes below 0x20 and the backslash as "\ooo" octal and every
// other byte (including UTF-8 at or above 0x80) raw. A backslash that is not
// followed by three octal digits is kept as it is.
func UnescapeOutput(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return bytes.Clone(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\\' && i+3 < len(b) && isOctal3(b[i+1:i+4]) {
			out = append(out, octalByte(b[i+1:i+4]))
			i += 3
			continue
		}
		out = append(out, c)
	}
	return out
}

// isOctal3 reports whether b holds three octal digits with a value of at
// most 0377.
func isOctal3(b []byte) bool {
	return len(b) >= 3 && b[0] >= '0' && b[0] <= '3' &&
		b[1] >= '0' && b[1] <= '7' && b[2] >= '0' && b[2] <= '7'
}

func octalByte(b []byte) byte {
	return (b[0]-'0')<<6 | (b[1]-'0')<<3 | (b[2] - '0')
}
