package codec

import "testing"

func TestQuoteForms(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"display-message", "-p", "hello"}, "display-message -p hello"},
		{[]string{"set-buffer", "-b", "x", "--", ""}, "set-buffer -b x -- ''"},
		{[]string{"send-keys", "-t", "%1", "-l", "a b"}, "send-keys -t '%1' -l 'a b'"},
		{[]string{"x", "#{pane_id}"}, "x '#{pane_id}'"},
		{[]string{"x", "a;b"}, "x 'a;b'"},
		{[]string{"x", "{"}, "x '{'"},
		{[]string{"x", "=main"}, "x '=main'"},
		{[]string{"x", "~"}, "x '~'"},
		{[]string{"x", "~\n"}, `x "\~\012"`},
		{[]string{"x", "$HOME"}, `x '$HOME'`},
		{[]string{"x", "it's $HOME"}, `x "it's \$HOME"`},
		{[]string{"x", `a\b"c`}, `x 'a\b"c'`},
		{[]string{"x", "a'b\\c\"d"}, `x "a'b\\c\"d"`},
		{[]string{"x", "a\nb"}, `x "a\012b"`},
		{[]string{"x", "\r\t\x1b\x7f"}, `x "\015\011\033\177"`},
		{[]string{"x", "\xff\xfe"}, `x "\377\376"`},
		{[]string{"x", "é€"}, "x 'é€'"},
		{[]string{"x", "é\n"}, "x \"é\\012\""},
		{[]string{"x", "\u0085"}, `x "\302\205"`},
		{[]string{"x", "-t"}, "x -t"},
		{[]string{"x", "a/b.c:d,e+f@g_h-1"}, "x a/b.c:d,e+f@g_h-1"},
	}
	for _, tt := range tests {
		if got := Quote(tt.args); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
}

func TestQuoteNeverWritesRawControlBytes(t *testing.T) {
	var all []byte
	for b := range 256 {
		all = append(all, byte(b))
	}
	q := Quote([]string{"set-buffer", string(all)})
	for i := 0; i < len(q); i++ {
		if c := q[i]; c < 0x20 || c == 0x7f || c == 0xff {
			t.Fatalf("Quote wrote raw byte %#x at %d: %q", c, i, q)
		}
	}
}

func TestValidArg(t *testing.T) {
	tests := []struct {
		arg string
		ok  bool
	}{
		{"", true},
		{"abc", true},
		{"\xff", true},
		{"a\x00", false},
		{"\x00", false},
	}
	for _, tt := range tests {
		if err := ValidArg(tt.arg); (err == nil) != tt.ok {
			t.Errorf("ValidArg(%q) = %v, want ok=%v", tt.arg, err, tt.ok)
		}
	}
	for _, name := range []string{"display-message", "send-keys", "ls"} {
		if err := ValidCommandName(name); err != nil {
			t.Errorf("ValidCommandName(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range []string{"", "FOO=bar", "#x", "%if", "a b", "'x'", "X"} {
		if err := ValidCommandName(name); err == nil {
			t.Errorf("ValidCommandName(%q) = nil, want an error", name)
		}
	}
}
