package tmux

import (
	"errors"
	"slices"
	"testing"
)

func TestLiteral(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"plain text; $HOME ~ 'q' \"q\" %Y", "plain text; $HOME ~ 'q' \"q\" %Y"},
		{"#", "##"},
		{"a#", "a##"},
		{"a#b", "a##b"},
		{"##", "####"},
		{"#{pane_id}", "##{pane_id}"},
		{"#(touch x)", "##(touch x)"},
		{"#S #W #,#}", "##S ##W ##,##}"},
		{"#[fg=red]", "#[fg=red]"},
		{"##[x", "##[x"},
		{"###[x", "###[x"},
		{"#S#[x]#S", "##S#[x]##S"},
		{"é#🙂", "é##🙂"},
	}
	for _, tt := range tests {
		if got := Literal(tt.in); got != tt.want {
			t.Errorf("Literal(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got, want := literalTime("cat >> '%Y#(x)'"), "cat >> '%%Y##(x)'"; got != want {
		t.Errorf("literalTime = %q, want %q", got, want)
	}
}

func TestLiteralArgs(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string // nil: refused with ErrInvalidArg
	}{
		{"names, directory; the format stays",
			[]string{"new-session", "-d", "-s", "a#b", "-n", "#W", "-c", "/x/#(y)", "-F", "#{session_id}", "-e", "K=#x", "--", "sh", "#x"},
			[]string{"new-session", "-d", "-s", "a##b", "-n", "##W", "-c", "/x/##(y)", "-F", "#{session_id}", "-e", "K=#x", "--", "sh", "#x"}},
		{"value attached to its flag", []string{"new-window", "-c#x", "-dn#y"}, []string{"new-window", "-c##x", "-dn##y"}},
		{"flags grouped before a value", []string{"new-window", "-dn", "#y"}, []string{"new-window", "-dn", "##y"}},
		{"alias", []string{"neww", "-n", "#y"}, []string{"neww", "-n", "##y"}},
		{"positional name", []string{"rename-window", "-t", "@1", "#x"}, []string{"rename-window", "-t", "@1", "##x"}},
		{"positional after --", []string{"rename-session", "-t", "$1", "--", "-#x"}, []string{"rename-session", "-t", "$1", "--", "-##x"}},
		{"title", []string{"select-pane", "-t", "%1", "-T", "#(x)"}, []string{"select-pane", "-t", "%1", "-T", "##(x)"}},
		{"start directory", []string{"split-window", "-d", "-l", "50%", "-c", "#d", "-t", "%1"}, []string{"split-window", "-d", "-l", "50%", "-c", "##d", "-t", "%1"}},
		{"respawn", []string{"respawn-pane", "-k", "-c", "#d", "-t", "%1", "#cmd"}, []string{"respawn-pane", "-k", "-c", "##d", "-t", "%1", "#cmd"}},
		{"option name; the value is not expanded", []string{"set-option", "-g", "--", "@o#", "#(x)"}, []string{"set-option", "-g", "--", "@o##", "#(x)"}},
		{"buffer file", []string{"load-buffer", "-b", "b", "--", "/tmp/#x"}, []string{"load-buffer", "-b", "b", "--", "/tmp/##x"}},
		{"pipe command: strftime too", []string{"pipe-pane", "-t", "%1", "cat >> %Y#"}, []string{"pipe-pane", "-t", "%1", "cat >> %%Y##"}},
		{"keys are literal", []string{"send-keys", "-l", "-t", "%1", "--", "#(x)"}, []string{"send-keys", "-l", "-t", "%1", "--", "#(x)"}},
		{"display-message is a format", []string{"display-message", "-p", "#{pane_id}"}, []string{"display-message", "-p", "#{pane_id}"}},
		{"other commands pass", []string{"set-buffer", "-b", "x", "--", "#(x)"}, []string{"set-buffer", "-b", "x", "--", "#(x)"}},
		{"set-option -F", []string{"set-option", "-gF", "@o", "x"}, nil},
		{"set-environment -F", []string{"set-environment", "-F", "X", "x"}, nil},
		{"send-keys -F", []string{"send-keys", "-F", "-t", "%1", "x"}, nil},
		{"control character in a name", []string{"new-session", "-s", "a\tb"}, nil},
		{"invalid UTF-8 in a name", []string{"rename-window", "\xff"}, nil},
		{"invalid UTF-8 in a title", []string{"select-pane", "-T", "\xff"}, nil},
		{"NUL", []string{"set-buffer", "--", "a\x00b"}, nil},
		{"abbreviated command", []string{"rename-s", "#x"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := literalArgs(tt.in)
			if tt.want == nil {
				if !errors.Is(err, ErrInvalidArg) {
					t.Fatalf("literalArgs(%q) = %q, %v; want ErrInvalidArg", tt.in, got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("literalArgs(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestEveryAliasIsInTheTable keeps the alias map in step with the table.
func TestEveryAliasIsInTheTable(t *testing.T) {
	for alias, name := range commandAliases {
		if _, ok := formatArgs[name]; !ok {
			t.Errorf("alias %s names %s, which is not in formatArgs", alias, name)
		}
	}
	for name, spec := range formatArgs {
		for flag := range spec.values {
			if !slices.Contains([]byte(spec.flags), flag) {
				t.Errorf("%s: -%c has a kind but is not in the template %q", name, flag, spec.flags)
			}
		}
	}
}

func TestArgvLiteral(t *testing.T) {
	in := []string{"set-buffer", "--", "a;", ";", `a\;`, "a;b", "plain"}
	want := []string{"set-buffer", "--", `a\;`, `\;`, `a\\;`, "a;b", "plain"}
	if got := argvLiteral(in); !slices.Equal(got, want) {
		t.Errorf("argvLiteral(%q) = %q, want %q", in, got, want)
	}
	if in[2] != "a;" {
		t.Errorf("argvLiteral changed its argument: %q", in)
	}
}
