package codec

import (
	"strings"
)

// EnvironmentArgs is show-environment in the form ParseEnvironment reads:
// -s, shell commands (NAME="value"; export NAME; or unset NAME;). Plain
// show-environment prints NAME=value lines, which a value holding a
// newline can forge; with -s, tmux escapes '$', '`', '"' and '\' in the
// value, so its end is the first unescaped '"'.
var EnvironmentArgs = []string{"show-environment", "-s"}

// ParseEnvironment decodes show-environment -s output: each name maps to
// its value, or to nil for a variable removed from this environment. It
// undoes tmux's shell escaping and what 3.4/3.5a's output path adds (see
// tmux.Capabilities.OutputEscaped: octal and C escapes for control characters, a backslash
// before '$' and a letter; since -s escapes every '$', a backslash, a
// backslash and a '$' can only mean '$').
//
// Anything a pane's program can set may reach it: tmux prints a name as
// it is, and a name may hold any byte but '=' and NUL (tmux setenv
// 'A"B', or a newline). A set record is NAME="VALUE"; export NAME; so its
// name ends at its first '=' and its value at the first unescaped '"'
// (-s escapes every '"' of a value): such a name is read whole and no
// text of a name or value can pass for a record of its own. A removed
// variable is "unset NAME;", whose name ends at its first ';' (a name
// holding ";" and a newline can read as several removed variables: the
// one ambiguity of tmux's output, and it can only add removed names). A
// record that cannot be read is skipped up to the next line and counted
// in skipped; the rest is still decoded.
func ParseEnvironment(out []byte) (vars map[string]*string, skipped int) {
	vars = map[string]*string{}
	s := string(out)
	for len(s) > 0 {
		name, value, rest, ok := environRecord(s)
		switch {
		case ok:
			vars[name] = value
			s = rest
		case s[0] == '\n':
			s = s[1:] // an empty line (a name may begin with a newline: records first)
		default:
			skipped++
			_, s, _ = strings.Cut(s, "\n")
		}
	}
	return vars, skipped
}

// environRecord reads the record at the start of s: the name, its value
// (nil: removed), and what follows the record.
func environRecord(s string) (name string, value *string, rest string, ok bool) {
	// A record ends its line.
	end := func(after string) (string, bool) {
		if after == "" {
			return after, true
		}
		if after[0] == '\n' {
			return after[1:], true
		}
		return "", false
	}
	// A set record first: its name may begin with "unset ", and an unset
	// record (no '=' before the next record) never reads as one.
	if name, value, rest, ok = setRecord(s, end); ok {
		return name, value, rest, ok
	}
	if r, found := strings.CutPrefix(s, "unset "); found {
		name, after, found := strings.Cut(r, ";")
		if !found || name == "" {
			return "", nil, "", false
		}
		rest, ok = end(after)
		return name, nil, rest, ok
	}
	return "", nil, "", false
}

// setRecord reads NAME="VALUE"; export NAME; at the start of s; end
// checks and returns what follows it.
func setRecord(s string, end func(string) (string, bool)) (name string, value *string, rest string, ok bool) {
	i := strings.IndexByte(s, '=')
	if i <= 0 || i+1 >= len(s) || s[i+1] != '"' {
		return "", nil, "", false
	}
	name, r := s[:i], []byte(s[i+2:])
	var v []byte
	j := 0
	for ; j < len(r) && r[j] != '"'; j++ {
		c := r[j]
		if c == '\\' && j+1 < len(r) {
			c, j = decodeEscape(r, j)
		}
		v = append(v, c)
	}
	if j == len(r) {
		return "", nil, "", false // the value has no end
	}
	after, found := strings.CutPrefix(string(r[j+1:]), "; export "+name+";")
	if !found {
		return "", nil, "", false
	}
	rest, ok = end(after)
	str := string(v)
	return name, &str, rest, ok
}
