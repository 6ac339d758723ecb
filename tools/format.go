package tools

import "strings"

// literalFormat escapes s so that tmux's format expansion yields s itself
// and runs nothing: every "#" is doubled, except before "[", where tmux
// keeps "#[" as it is (and "##[" as "##[").
func literalFormat(s string) string {
	if !strings.Contains(s, "#") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == '#' && (i+1 == len(s) || s[i+1] != '[') {
			b.WriteByte('#')
		}
	}
	return b.String()
}
