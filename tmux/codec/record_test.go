package codec

import (
	"fmt"
	"maps"
	"slices"
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
		name    string
		out     string
		want    map[string]*string
		skipped int
	}{
		{"plain", "A=\"1\"; export A;\nunset B;\n", map[string]*string{"A": str("1"), "B": nil}, 0},
		{"escapes", `V="a \$HOME \"q\" \\ \` + "`" + `"; export V;` + "\n", map[string]*string{"V": str("a $HOME \"q\" \\ `")}, 0},
		{"3.4 output", `V="x\\$HOME \001"; export V;` + "\n", map[string]*string{"V": str("x$HOME \x01")}, 0},
		{"forged line", "V=\"a\nFORGED=\\\"x\\\"; export FORGED;\"; export V;\n", map[string]*string{"V": str("a\nFORGED=\"x\"; export FORGED;")}, 0},
		// Names a pane's program can set: read whole, nothing forged.
		{"quote in a name", "A=\"1\"; export A;\nB\"AD=\"2\"; export B\"AD;\nC=\"3\"; export C;\n",
			map[string]*string{"A": str("1"), "B\"AD": str("2"), "C": str("3")}, 0},
		{"newline in a name", "N\nL=\"2\"; export N\nL;\nC=\"3\"; export C;\n", map[string]*string{"N\nL": str("2"), "C": str("3")}, 0},
		// The name X"; export X;<newline>EVIL, which looks like the end
		// of a record and the start of another.
		{"forging name", "X\"; export X;\nEVIL=\"1\"; export X\"; export X;\nEVIL;\nC=\"3\"; export C;\n",
			map[string]*string{"X\"; export X;\nEVIL": str("1"), "C": str("3")}, 0},
		// What cannot be read is skipped up to the next line.
		{"no end", "A=\"1\"; export A;\n" + `V="a`, map[string]*string{"A": str("1")}, 1},
		{"no export", `V="a"; export W;` + "\nC=\"3\"; export C;\n", map[string]*string{"C": str("3")}, 1},
		{"garbage", "what\nunset ;\nX=1\nC=\"3\"; export C;\n", map[string]*string{"C": str("3")}, 3},
		{"empty", "", map[string]*string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, skipped := ParseEnvironment([]byte(tt.out))
			if skipped != tt.skipped {
				t.Errorf("ParseEnvironment(%q) skipped %d, want %d", tt.out, skipped, tt.skipped)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("ParseEnvironment(%q) = %d names (%q), want %d", tt.out, len(got), slices.Sorted(maps.Keys(got)), len(tt.want))
			}
			for k, w := range tt.want {
				g, ok := got[k]
				if !ok || (g == nil) != (w == nil) || (g != nil && *g != *w) {
					t.Errorf("%q = %v (present %v), want %v", k, deref(g), ok, deref(w))
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

// FuzzEnvironment: whatever name (no '=' or NUL, as tmux allows) and
// value a pane's program sets, show-environment -s output as tmux 3.3a
// prints it reads back as exactly that variable, between two others
// that stay intact: no name or value can break the parse, hide a
// neighbour or pass for a variable of its own.
func FuzzEnvironment(f *testing.F) {
	for _, seed := range [][2]string{
		{"A", "1"}, {`B"AD`, "2"}, {"N\nL", "x\ny"}, {"X\"; export X;\nEVIL", "1"},
		{"V", `a $HOME "q" \ ` + "`"}, {"unset Z;\nW", "\\001"}, {"U", "\"; export U;\nZ=\"9"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		if name == "" || strings.ContainsAny(name, "=\x00") || strings.ContainsRune(value, 0) {
			t.Skip("tmux refuses it")
		}
		esc := func(v string) string {
			var b strings.Builder
			for _, c := range []byte(v) {
				if c == '$' || c == '`' || c == '"' || c == '\\' {
					b.WriteByte('\\')
				}
				b.WriteByte(c)
			}
			return b.String()
		}
		rec := func(n, v string) string { return n + `="` + esc(v) + `"; export ` + n + ";\n" }
		out := rec("AAA_FIRST", "first") + rec(name, value) + rec("ZZZ_LAST", "last")
		got, skipped := ParseEnvironment([]byte(out))
		want := map[string]string{"AAA_FIRST": "first", name: value, "ZZZ_LAST": "last"}
		if skipped != 0 || len(got) != len(want) {
			t.Fatalf("ParseEnvironment(%q) = %d names %q, %d skipped; want %q", out, len(got), slices.Sorted(maps.Keys(got)), skipped, slices.Sorted(maps.Keys(want)))
		}
		for k, w := range want {
			if g := got[k]; g == nil || *g != w {
				t.Errorf("%q = %v, want %q", k, deref(g), w)
			}
		}
	})
}
