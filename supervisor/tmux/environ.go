package tmux

import (
	"fmt"
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
// OutputEscaped: octal and C escapes for control characters, a backslash
// before '$' and a letter; since -s escapes every '$', a backslash, a
// backslash and a '$' can only mean '$').
func ParseEnvironment(out []byte) (map[string]*string, error) {
	vars := map[string]*string{}
	s := string(out)
	for len(s) > 0 {
		if s[0] == '\n' {
			s = s[1:]
			continue
		}
		if rest, ok := strings.CutPrefix(s, "unset "); ok {
			name, after, ok := strings.Cut(rest, ";")
			if !ok {
				return nil, fmt.Errorf("tmux: parse environment: unset without ';'")
			}
			vars[name] = nil
			s = after
			continue
		}
		name, rest, ok := strings.Cut(s, "=\"")
		if !ok || strings.ContainsAny(name, "\n\"") {
			return nil, fmt.Errorf("tmux: parse environment: %q", truncate([]byte(s), 40))
		}
		var v []byte
		i := 0
		for ; i < len(rest) && rest[i] != '"'; i++ {
			c := rest[i]
			if c == '\\' && i+1 < len(rest) {
				c, i = decodeEscape([]byte(rest), i)
			}
			v = append(v, c)
		}
		if i == len(rest) {
			return nil, fmt.Errorf("tmux: parse environment: value of %s without its end", name)
		}
		after, ok := strings.CutPrefix(rest[i+1:], "; export "+name+";")
		if !ok {
			return nil, fmt.Errorf("tmux: parse environment: %s not followed by its export", name)
		}
		value := string(v)
		vars[name] = &value
		s = after
	}
	return vars, nil
}
