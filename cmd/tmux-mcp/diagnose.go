package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/tmux-mcp/tmux-mcp/diagnostics"
	"github.com/tmux-mcp/tmux-mcp/journal"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tools"
)

// diagnoseOptions are the options of `tmux-mcp diagnose`.
type diagnoseOptions struct {
	config
	all    bool
	format string
	out    string
	since  time.Duration
}

// runDiagnose writes the crash report. Its exit status is the report's:
// 0 all ok, 1 warnings, 2 failures, 3 could not run (bad flags included).
func runDiagnose(ctx context.Context, args []string, e env) int {
	var o diagnoseOptions
	fs := flag.NewFlagSet("diagnose", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	b := bind(fs, "socket-name", "socket-path", "tmux-bin", "journal")
	fs.BoolVar(&o.all, "all", false, "diagnose every tmux server found: in the socket directory, listening on a socket, or in the journal")
	fs.StringVar(&o.format, "format", "markdown", "report format: markdown or json")
	fs.StringVar(&o.out, "out", "", "write the report to this file instead of stdout")
	fs.DurationVar(&o.since, "since", 24*time.Hour, "how far back the timeline reaches")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return diagnostics.ExitOK
		}
		return diagnostics.ExitNotRun
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "tmux-mcp diagnose: "+format+"\n", a...)
		return diagnostics.ExitNotRun
	}
	if fs.NArg() > 0 {
		return fail("unexpected arguments %q", fs.Args())
	}
	if o.format != "markdown" && o.format != "json" {
		return fail("--format %q: want markdown or json", o.format)
	}
	if o.since <= 0 {
		return fail("--since %v: want a positive duration such as 1h", o.since)
	}
	c, err := b.resolve(e.getenv)
	if err != nil {
		return fail("%v", err)
	}
	o.config = c
	opts := diagnostics.Options{Binary: c.TmuxBin, All: o.all, Since: o.since,
		Sockets: []tmux.Socket{c.supervisorConfig().DefaultSocket}}
	j, err := openJournalToRead(c, e)
	if err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp diagnose: the journal: %v\n", err)
	}
	if j != nil {
		defer j.Close()
		opts.Journal = diagnosticsJournal(j)
	}
	r, err := diagnostics.Run(ctx, opts)
	if err != nil {
		return fail("%v", err)
	}
	out := []byte(r.Markdown())
	if o.format == "json" {
		if out, err = r.JSON(); err != nil {
			return fail("%v", err)
		}
	}
	if o.out == "" {
		e.stdout.Write(out) //nolint:errcheck // nothing better to do with a broken stdout
		return r.ExitCode()
	}
	if err := os.WriteFile(o.out, out, 0o600); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(e.stderr, "tmux-mcp diagnose: report written to %s (status: %s)\n", o.out, r.Status)
	return r.ExitCode()
}

// openJournalToRead opens the journal the settings name, if it exists:
// diagnose reads it and never creates one. It returns nil, nil when the
// journal is off, has no place (no HOME) or there is no file.
func openJournalToRead(c config, e env) (*journal.Journal, error) {
	path, err := c.journalPath(e.getenv)
	if err != nil || path == "" {
		return nil, nil //nolint:nilerr // no place for a journal: there is none to read
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return journal.Open(path, &journal.Options{Logger: logger})
}

// toolDiagnoser runs diagnose for the MCP tool inside the serving process:
// with the supervisor's figures and this process's own fds and goroutines.
type toolDiagnoser struct {
	sup     *supervisor.Supervisor
	binary  string
	journal *journal.Journal // nil when it is off
}

func (d toolDiagnoser) Diagnose(ctx context.Context, q tools.DiagnoseQuery) (tools.DiagnoseResult, error) {
	opts := diagnostics.Options{Binary: d.binary, All: q.All, Since: q.Since, Health: supervisedHealth{d.sup}, Self: true,
		Journal: diagnosticsJournal(d.journal)}
	if q.Socket != (tmux.Socket{}) {
		opts.Sockets = []tmux.Socket{q.Socket}
	}
	r, err := diagnostics.Run(ctx, opts)
	if err != nil {
		return tools.DiagnoseResult{}, err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return tools.DiagnoseResult{}, fmt.Errorf("diagnose: encode report: %w", err)
	}
	return tools.DiagnoseResult{Report: b, Markdown: r.Markdown()}, nil
}

// supervisedHealth gives diagnose the supervisor's view of the servers
// this process supervises.
type supervisedHealth struct{ sup *supervisor.Supervisor }

func (h supervisedHealth) Health(path string) (supervisor.Health, bool) {
	for _, srv := range h.sup.Servers() {
		if srv.Socket().ResolvedPath() == path {
			return srv.Health(), true
		}
	}
	return supervisor.Health{}, false
}
