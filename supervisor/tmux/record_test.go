package tmux

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// qQuote is what tmux's #{q:...} does to a value (format_quote_shell, the
// same in 3.2a to 3.7c).
func qQuote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("|&;<>()$`\\\"'*?[# =%", s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// visOutput is what 3.4 (dollar) and 3.5a (!dollar) do to command output:
// utf8_strvis with VIS_OCTAL|VIS_CSTYLE|VIS_NOSLASH.
func visOutput(s string, dollar bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError && n > 1 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		c := s[i]
		switch {
		case c == '$' && dollar && i+1 < len(s) && (isAlpha(s[i+1]) || s[i+1] == '_' || s[i+1] == '{'):
			b.WriteString(`\$`)
		case c == '\n' || c == '\t' || c == ' ' || (c > 0x20 && c < 0x7f):
			b.WriteByte(c)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\a':
			b.WriteString(`\a`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\v':
			b.WriteString(`\v`)
		case c == '\f':
			b.WriteString(`\f`)
		default:
			fmt.Fprintf(&b, `\%03o`, c)
		}
		i++
	}
	return b.String()
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// encode prints values as tmux prints a RecordFormat record.
func encode(vals []string, mode string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = qQuote(v)
	}
	line := strings.Join(q, "|") + ">"
	switch mode {
	case "3.4":
		line = visOutput(line, true)
	case "3.5a":
		line = visOutput(line, false)
	}
	return line + "\n"
}

func TestParseRecords(t *testing.T) {
	tests := []struct {
		name string
		out  string
		n    int
		want [][]string
		err  bool
	}{
		{"two records", "a|b>\nc|d>\n", 2, [][]string{{"a", "b"}, {"c", "d"}}, false},
		{"empty fields", "|>\n", 2, [][]string{{"", ""}}, false},
		{"escaped separators", `a\|b\>c|\\>` + "\n", 2, [][]string{{"a|b>c", `\`}}, false},
		{"newline inside a value", "a\nb|c>\n", 2, [][]string{{"a\nb", "c"}}, false},
		{"vis octal", `a\001|\\$x>` + "\n", 2, [][]string{{"a\x01", "$x"}}, false},
		{"no output", "", 2, nil, false},
		{"too few fields", "a>\n", 2, nil, true},
		{"too many fields", "a|b|c>\n", 2, nil, true},
		{"no end", "a|b\n", 2, nil, true},
		{"dangling escape", `a|b\`, 2, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRecords([]byte(tt.out), tt.n)
			if (err != nil) != tt.err {
				t.Fatalf("ParseRecords(%q) error = %v, want error %v", tt.out, err, tt.err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("ParseRecords(%q) = %q, want %q", tt.out, got, tt.want)
			}
		})
	}
}

// FuzzRecords: whatever bytes two values hold, the records tmux prints for
// them (in each version's way) decode to exactly those values, and a
// value can neither add a record nor move a field.
func FuzzRecords(f *testing.F) {
	for _, s := range []string{"", "a|b", "x>\n%end 1 2 1", "\\$HOME", "\\\\$x", "\\001", "\x01\x1e\x1f", "\xff", "é$_"} {
		f.Add(s, "second")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.IndexByte(a, 0) >= 0 || strings.IndexByte(b, 0) >= 0 {
			return // tmux values are C strings
		}
		for _, mode := range []string{"raw", "3.4", "3.5a"} {
			out := encode([]string{a, b, "%1"}, mode) + encode([]string{b, a, "%2"}, mode)
			got, err := ParseRecords([]byte(out), 3)
			if err != nil {
				t.Fatalf("%s: ParseRecords(%q): %v", mode, out, err)
			}
			want := [][]string{{a, b, "%1"}, {b, a, "%2"}}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: ParseRecords(%q) = %q, want %q", mode, out, got, want)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "%") {
					t.Fatalf("%s: a line of the output begins with %%: %q", mode, line)
				}
			}
		}
	})
}

func TestParseEnvironment(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		out  string
		want map[string]*string
		err  bool
	}{
		{"plain", "A=\"1\"; export A;\nunset B;\n", map[string]*string{"A": str("1"), "B": nil}, false},
		{"escapes", `V="a \$HOME \"q\" \\ \` + "`" + `"; export V;` + "\n", map[string]*string{"V": str("a $HOME \"q\" \\ `")}, false},
		{"3.4 output", `V="x\\$HOME \001"; export V;` + "\n", map[string]*string{"V": str("x$HOME \x01")}, false},
		{"forged line", "V=\"a\nFORGED=\\\"x\\\"; export FORGED;\"; export V;\n", map[string]*string{"V": str("a\nFORGED=\"x\"; export FORGED;")}, false},
		{"no end", `V="a`, nil, true},
		{"no export", `V="a"; export W;`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEnvironment([]byte(tt.out))
			if (err != nil) != tt.err {
				t.Fatalf("ParseEnvironment(%q) error = %v, want error %v", tt.out, err, tt.err)
			}
			if tt.err {
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("ParseEnvironment(%q) = %d names, want %d", tt.out, len(got), len(tt.want))
			}
			for k, w := range tt.want {
				g, ok := got[k]
				if !ok || (g == nil) != (w == nil) || (g != nil && *g != *w) {
					t.Errorf("%s = %v, want %v", k, deref(g), deref(w))
				}
			}
		})
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
