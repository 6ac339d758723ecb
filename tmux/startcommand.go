package tmux

import (
	"errors"
	"strings"
)

// SplitStartCommand splits #{pane_start_command} back into the argv tmux
// started the pane with. tmux joins the arguments with spaces and escapes
// each one (args_escape): in double quotes with C-style and octal escapes
// when it holds " #';${}%", in single quotes when it holds a space or a
// double quote, bare otherwise (backslash escapes still apply).
func SplitStartCommand(s string) ([]string, error) {
	var argv []string
	i := 0
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return argv, nil
		}
		var b strings.Builder
		for i < len(s) && s[i] != ' ' {
			switch c := s[i]; c {
			case '\'':
				end := strings.IndexByte(s[i+1:], '\'')
				if end < 0 {
					return nil, errors.New("journal: unterminated single quote")
				}
				b.WriteString(s[i+1 : i+1+end])
				i += end + 2
			case '"':
				i++
				for {
					if i >= len(s) {
						return nil, errors.New("journal: unterminated double quote")
					}
					if s[i] == '"' {
						i++
						break
					}
					if s[i] == '\\' {
						i = unescape(&b, s, i)
						continue
					}
					b.WriteByte(s[i])
					i++
				}
			case '\\':
				i = unescape(&b, s, i)
			default:
				b.WriteByte(c)
				i++
			}
		}
		argv = append(argv, b.String())
	}
}

// unescape writes the character the backslash escape at s[i] stands for
// and returns the index after it.
func unescape(b *strings.Builder, s string, i int) int {
	if i+1 >= len(s) {
		b.WriteByte('\\')
		return i + 1
	}
	c := s[i+1]
	if c >= '0' && c <= '7' {
		n, j := 0, i+1
		for ; j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7'; j++ {
			n = n*8 + int(s[j]-'0')
		}
		b.WriteByte(byte(n))
		return j
	}
	if r, ok := cEscapes[c]; ok {
		b.WriteByte(r)
	} else {
		b.WriteByte(c)
	}
	return i + 2
}

var cEscapes = map[byte]byte{'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', 's': ' '}
