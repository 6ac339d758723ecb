package tmux

import (
	"slices"
	"testing"
)

// TestSplitStartCommand: #{pane_start_command} as tmux escapes it, split
// back into the argv.
func TestSplitStartCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`sleep 999`, []string{"sleep", "999"}},
		{`"exec sleep 1000"`, []string{"exec sleep 1000"}},
		{`'a b' c`, []string{"a b", "c"}},
		{`"x\"y" "\$HOME" "tab\there" "\101"`, []string{`x"y`, "$HOME", "tab\there", "A"}},
		{`\~ \;`, []string{"~", ";"}},
		{`''`, []string{""}},
	}
	for _, tt := range tests {
		got, err := SplitStartCommand(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("SplitStartCommand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := SplitStartCommand(`"open`); err == nil {
		t.Errorf("SplitStartCommand(unterminated) = nil error, want one")
	}
}
