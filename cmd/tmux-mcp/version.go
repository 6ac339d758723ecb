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
	fmt.Fprintln(e.stdout, stamp())
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

// Release builds stamp these at link time (.goreleaser.yaml):
//
//	-X main.releaseVersion=1.2.3 -X main.releaseCommit=<sha> -X main.releaseDate=<RFC 3339>
//
// They are set by the linker only and never written at run time. A build
// without them (go build, go install) describes itself from the build
// information the go command records.
var (
	releaseVersion string
	releaseCommit  string
	releaseDate    string
)

// buildStamp is what a binary knows about its own build.
type buildStamp struct {
	Version string // release version, or the module version ("dev" when none)
	Commit  string // VCS revision, or "unknown"
	Date    string // build date (release) or commit date (VCS), or "unknown"
}

// String is the first line of `tmux-mcp version`.
func (b buildStamp) String() string {
	return fmt.Sprintf("tmux-mcp %s (commit %s, built %s)", b.Version, b.Commit, b.Date)
}

// stamp returns the release stamp when the linker set one, else what the
// build information records.
func stamp() buildStamp {
	if releaseVersion != "" {
		b := buildStamp{Version: releaseVersion, Commit: releaseCommit, Date: releaseDate}
		if b.Commit == "" {
			b.Commit = "unknown"
		}
		if b.Date == "" {
			b.Date = "unknown"
		}
		return b
	}
	b := buildStamp{Version: "dev", Commit: "unknown", Date: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && s.Value != "":
			b.Commit = s.Value
			if len(s.Value) >= 12 {
				b.Version += "+" + s.Value[:12]
			}
		case s.Key == "vcs.time" && s.Value != "":
			b.Date = s.Value
		}
	}
	return b
}

// version is the version tmux-mcp reports everywhere (initialize's
// serverInfo, telemetry, logs): the release version when stamped, else
// the module version with the VCS revision when the build recorded one.
func version() string {
	return stamp().Version
}
