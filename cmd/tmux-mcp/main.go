// Command tmux-mcp serves tmux to AI agents over the Model Context Protocol,
// with a supervisor that keeps the tmux server alive while they use it.
//
// Usage:
//
//	tmux-mcp [serve] [flags]   serve MCP over stdio (or --http ADDR)
//	tmux-mcp diagnose [flags]  write the crash report of a tmux server
//	tmux-mcp tools [flags]     print the tool registry (--markdown, --json, --stats)
//	tmux-mcp journal CMD       the session journal: ls, show, events, restore, check, compact
//	tmux-mcp version           print tmux-mcp's and tmux's versions
//	tmux-mcp help [CMD]        this help, or a command's flags
//
// Every flag has a TMUX_MCP_* environment variable; a flag wins over the
// environment, which wins over the default. `tmux-mcp --help` lists the
// commands, then serve's flags.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], env{os.Stdin, os.Stdout, os.Stderr, os.Getenv}))
}

// env is the process environment a subcommand sees.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// command is a subcommand of tmux-mcp.
type command struct {
	name, args, summary string
	run                 func(context.Context, []string, env) int
}

// commands are tmux-mcp's subcommands, in the order help lists them;
// help itself is handled by run.
func commands() []command {
	return []command{
		{"serve", "[flags]", "serve MCP over stdio, or streamable HTTP with --http (the default command)", runServe},
		{"diagnose", "[flags]", "write the crash report of a tmux server (--all, --format json)", runDiagnose},
		{"journal", "CMD", "the session journal: ls, show, events, restore, check, compact", runJournal},
		{"tools", "[flags]", "print the tool registry (--markdown, --json, --stats)", runTools},
		{"version", "", "print the versions of tmux-mcp and tmux", runVersion},
		{"help", "[CMD]", "this help, or a command's flags", nil},
	}
}

func run(ctx context.Context, args []string, e env) int {
	e.stderr = redactingWriter{e.stderr}
	name := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if name == "help" {
		return runHelp(ctx, args, e)
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			return c.run(ctx, args, e)
		}
	}
	fmt.Fprintf(e.stderr, "tmux-mcp: unknown command %q\n\n", name)
	writeUsage(e.stderr)
	return exitUsage
}

// runHelp prints the top-level help (the commands, then serve's flags),
// or with a command's name, that command's help.
func runHelp(ctx context.Context, args []string, e env) int {
	if len(args) == 0 {
		writeHelp(e.stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] && c.run != nil {
			return c.run(ctx, []string{"-h"}, e)
		}
	}
	fmt.Fprintf(e.stderr, "tmux-mcp help: unknown command %q\n\n", args[0])
	writeUsage(e.stderr)
	return exitUsage
}

// writeUsage lists the commands.
func writeUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands() {
		use := "tmux-mcp " + c.name
		if c.name == "serve" {
			use = "tmux-mcp [serve]"
		}
		if c.args != "" {
			use += " " + c.args
		}
		fmt.Fprintf(tw, "  %s\t%s\n", use, c.summary)
	}
	tw.Flush()
}

// writeHelp is `tmux-mcp --help`: what tmux-mcp is, its commands, and the
// flags of serve, the command it runs without one.
func writeHelp(w io.Writer) {
	fmt.Fprint(w, "tmux-mcp serves tmux to AI agents over the Model Context Protocol (MCP),\n"+
		"with a supervisor that keeps the tmux server alive while they use it.\n\n")
	writeUsage(w)
	fmt.Fprint(w, "\nRun 'tmux-mcp help CMD' or 'tmux-mcp CMD -h' for a command's flags.\n"+
		"Every flag has a TMUX_MCP_* environment variable: a flag wins over the\n"+
		"environment, which wins over the default.\n\nFlags of serve:\n")
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	bind(fs)
	fs.SetOutput(w)
	fs.PrintDefaults()
}
