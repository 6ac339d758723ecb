package main

import (
	"bytes"
	"context"
	"flag"
	"regexp"
	"strings"
	"testing"
)

// TestHelp checks that every way of asking tmux-mcp for help at the top
// level (-h, -help, --help, help) prints, on stdout and with status 0,
// every subcommand first and then every flag of serve, the command that
// runs without one, the way go, git and gh do.
func TestHelp(t *testing.T) {
	var flags []string
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	bind(fs)
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })

	for _, args := range [][]string{{"-h"}, {"-help"}, {"--help"}, {"help"}, {"serve", "--help"}, {"--socket-name", "x", "-h"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), args, env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
			if code != exitOK {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitOK, errb.String())
			}
			got := out.String()
			flagsAt := strings.Index(got, "\nFlags of serve:\n")
			if flagsAt < 0 {
				t.Fatalf("no \"Flags of serve:\" section in:\n%s", got)
			}
			for _, c := range commands() {
				use := regexp.MustCompile(`(?m)^  tmux-mcp \[?` + c.name + `\b`)
				loc := use.FindStringIndex(got)
				switch {
				case loc == nil:
					t.Errorf("command %s is not listed:\n%s", c.name, got)
				case loc[0] > flagsAt:
					t.Errorf("command %s is listed after the flags", c.name)
				}
			}
			for _, f := range flags {
				listed := regexp.MustCompile(`\n  -` + regexp.QuoteMeta(f) + `[ \n]`)
				if !listed.MatchString(got[flagsAt:]) {
					t.Errorf("flag -%s is not listed under \"Flags of serve:\"", f)
				}
			}
		})
	}
}

// TestHelpCommand checks that `help CMD` gives the command's own help,
// and that an unknown command is a usage error that lists the commands.
func TestHelpCommand(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		want     string // in stdout and stderr
	}{
		{[]string{"help", "version"}, exitOK, "-tmux-bin"},
		{[]string{"help", "journal"}, exitOK, "tmux-mcp journal restore"},
		{[]string{"help", "nope"}, exitUsage, "  tmux-mcp diagnose [flags]"},
		{[]string{"nope"}, exitUsage, "  tmux-mcp diagnose [flags]"},
		{[]string{"--no-such-flag"}, exitUsage, "Run 'tmux-mcp --help'"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tt.args, env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
			if got := out.String() + errb.String(); code != tt.wantCode || !strings.Contains(got, tt.want) {
				t.Errorf("exit %d, output:\n%s\nwant exit %d and %q", code, got, tt.wantCode, tt.want)
			}
		})
	}
}
