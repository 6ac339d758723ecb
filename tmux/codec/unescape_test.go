package codec

import "testing"

func TestUnescapeBufferCases(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{``, ""},
		{`plain é`, "plain é"},
		{`\\`, `\`},
		{`\$HOME`, "$HOME"},
		{`\0`, "\x00"},
		{`\0x`, "\x00x"},
		{`\0000`, "\x000"},
		{`\a\b\t\v\f\r`, "\a\b\t\v\f\r"},
		{"a\nb", "a\nb"},
		{`\033[1m`, "\x1b[1m"},
		{`\377\376`, "\xff\xfe"},
		{`\400`, `\400`}, // not a byte: kept
		{`\q`, `\q`},     // unknown escape: kept
		{`trailing\`, `trailing\`},
		{`\12`, `\12`}, // "\1" is neither octal nor a C escape: kept
	}
	for _, tt := range tests {
		if got := UnescapeBuffer([]byte(tt.in)); string(got) != tt.want {
			t.Errorf("UnescapeBuffer(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestUnescapeStored decodes what tmux stored for titles set with
// select-pane -T on 3.7c and window names set with rename-window on 3.3a
// and 3.6b (recorded with display-message -p), back to the text that was
// set.
func TestUnescapeStored(t *testing.T) {
	tests := []struct{ stored, set string }{
		{`a\\b`, `a\b`},                          // 3.7c title
		{`a\\001b`, `a\001b`},                    // 3.7c title: no octal escape, a backslash
		{`$HOME ${x} \\$y`, `$HOME ${x} \$y`},    // 3.7c title: '$' as it is
		{`"q" 's' ## é ✓ 🙂`, `"q" 's' ## é ✓ 🙂`}, // 3.7c title: nothing to undo
		{`a\\b\$X`, `a\b$X`},                     // 3.3a window name: "\$" before a letter
		{`tab\tnl\nesc\033`, "tab\tnl\nesc\x1b"}, // 3.6b window name: control characters
	}
	for _, tt := range tests {
		if got := UnescapeStored(tt.stored); got != tt.set {
			t.Errorf("UnescapeStored(%q) = %q, want %q", tt.stored, got, tt.set)
		}
	}
}

func TestUnescapeOutput(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{``, ""},
		{`plain`, "plain"},
		{`\134`, `\`},
		{`\000\001\037`, "\x00\x01\x1f"},
		{`\377`, "\xff"},
		{`\400`, `\400`},
		{`\12`, `\12`},
		{`a\`, `a\`},
		{"caf\xc3", "caf\xc3"},
	}
	for _, tt := range tests {
		if got := UnescapeOutput([]byte(tt.in)); string(got) != tt.want {
			t.Errorf("UnescapeOutput(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
