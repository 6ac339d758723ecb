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
//
// Every flag has a TMUX_MCP_* environment variable; a flag wins over the
// environment, which wins over the default. `tmux-mcp serve -h` lists them.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
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

func run(ctx context.Context, args []string, e env) int {
	name := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	switch name {
	case "serve":
		return runServe(ctx, args, e)
	case "diagnose":
		return runDiagnose(ctx, args, e)
	case "tools":
		return runTools(ctx, args, e)
	case "journal":
		return runJournal(ctx, args, e)
	case "version":
		return runVersion(ctx, args, e)
	case "help":
		fmt.Fprint(e.stdout, usage)
		return exitOK
	}
	fmt.Fprintf(e.stderr, "tmux-mcp: unknown command %q\n\n%s", name, usage)
	return exitUsage
}

const usage = `Usage:
  tmux-mcp [serve] [flags]   serve MCP over stdio, or streamable HTTP with --http
  tmux-mcp diagnose [flags]  write the crash report of a tmux server (--all, --format json)
  tmux-mcp tools [flags]     print the tool registry (--markdown, --json, --stats)
  tmux-mcp journal CMD       the session journal: ls, show, events, restore, check, compact
  tmux-mcp version           print the versions of tmux-mcp and tmux
Run 'tmux-mcp <command> -h' for the flags of a command.
`
