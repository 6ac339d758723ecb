package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
)

// versionOptions are the options of `tmux-mcp version`.
type versionOptions struct {
	config
}

func runVersion(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	b := bind(fs, "tmux-bin")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	c, err := b.resolve(e.getenv)
	if err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp version: %v\n", err)
		return exitUsage
	}
	o := versionOptions{config: c}
	fmt.Fprintf(e.stdout, "tmux-mcp %s\n", version())
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tv, err := supervisor.TmuxVersion(ctx, o.TmuxBin)
	if err != nil {
		fmt.Fprintf(e.stdout, "tmux: not found (%s): %v\n", o.TmuxBin, err)
		return exitFail
	}
	fmt.Fprintf(e.stdout, "%s (%s)\n", tv, o.TmuxBin)
	return exitOK
}

// version is the module version of this build, with the VCS revision
// when the build recorded one.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += "+" + s.Value[:12]
		}
	}
	return v
}
