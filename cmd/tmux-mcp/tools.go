package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tmux-mcp/tmux-mcp/tools"
)

// toolsOptions are the options of `tmux-mcp tools`.
type toolsOptions struct {
	config
	markdown, json, stats bool
}

func runTools(_ context.Context, args []string, e env) int {
	var o toolsOptions
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	b := bind(fs, "safety", "toolsets")
	fs.BoolVar(&o.markdown, "markdown", false, "print the README tool table (every tool, whatever the tier)")
	fs.BoolVar(&o.json, "json", false, "print the tools/list result as JSON")
	fs.BoolVar(&o.stats, "stats", false, "print the size of tools/list: bytes in all and per tool")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	c, err := b.resolve(e.getenv)
	if err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp tools: %v\n", err)
		return exitUsage
	}
	o.config = c
	catalog := tools.Catalog(tools.Deps{})
	if o.markdown {
		fmt.Fprint(e.stdout, toolsMarkdown(catalog))
		return exitOK
	}
	tier, err := tools.ParseTier(o.Safety)
	if err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp tools: warning: %v\n", err)
	}
	sets, err := tools.ParseToolsets(o.Toolsets)
	if err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp tools: %v\n", err)
		return exitUsage
	}
	selected := tools.Select(catalog, tier, sets)
	switch {
	case o.json:
		b, err := tools.ListJSON(selected)
		if err != nil {
			fmt.Fprintf(e.stderr, "tmux-mcp tools: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
	case o.stats:
		b, err := tools.ListJSON(selected)
		if err != nil {
			fmt.Fprintf(e.stderr, "tmux-mcp tools: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(e.stdout, "tier %s, toolsets %s: %d tools, tools/list %d bytes, %.0f bytes per tool\n",
			tier, strings.Join(sets, ","), len(selected), len(b), float64(len(b))/float64(max(len(selected), 1)))
	default:
		fmt.Fprintf(e.stdout, "%-18s %-11s %-12s %s\n", "TOOL", "GROUP", "TIER", "DESCRIPTION")
		for _, t := range selected {
			fmt.Fprintf(e.stdout, "%-18s %-11s %-12s %s\n", t.Tool.Name, t.Group, t.Tier, t.Tool.Description)
		}
	}
	return exitOK
}

// toolsMarkdown renders the tool table for the README: every tool, its group,
// tier, annotations and description.
func toolsMarkdown(entries []tools.Entry) string {
	var b strings.Builder
	b.WriteString("| Tool | Group | Tier | Hints | Description |\n|---|---|---|---|---|\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", e.Tool.Name, e.Group, e.Tier, hintWords(e.Tool.Annotations),
			strings.ReplaceAll(e.Tool.Description, "|", `\|`))
	}
	return b.String()
}

// hintWords names the annotations a tool states as true.
func hintWords(a mcp.ToolAnnotation) string {
	var h []string
	if isTrue(a.ReadOnlyHint) {
		h = append(h, "read-only")
	}
	if isTrue(a.DestructiveHint) {
		h = append(h, "destructive")
	}
	if isTrue(a.IdempotentHint) {
		h = append(h, "idempotent")
	}
	if isTrue(a.OpenWorldHint) {
		h = append(h, "open-world")
	}
	if len(h) == 0 {
		return "-"
	}
	return strings.Join(h, ", ")
}

func isTrue(b *bool) bool { return b != nil && *b }
