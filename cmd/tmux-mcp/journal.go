package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/tmux-mcp/tmux-mcp/journal"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

const journalUsage = `Usage:
  tmux-mcp journal ls                                   servers in the journal
  tmux-mcp journal show [--server S] [--snapshot N]     a snapshot's tree (default: the latest)
  tmux-mcp journal events [--server S] [--since D]      a server's events (D: 1h, or an RFC 3339 time)
  tmux-mcp journal restore [--server S] [--snapshot N] [--dry-run]
                                                        rebuild a server's sessions (--dry-run prints the plan)
  tmux-mcp journal check                                bbolt's consistency check of the file
  tmux-mcp journal compact                              apply retention and rewrite the file
S is a socket path or a -L socket name (default: the default server).
Every command takes --journal PATH.
`

// journalOptions are the options of `tmux-mcp journal`.
type journalOptions struct {
	config
	server   string
	snapshot uint64
	since    string
	limit    int
	dryRun   bool
}

func runJournal(ctx context.Context, args []string, e env) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") || args[0] == "help" {
		fmt.Fprint(e.stderr, journalUsage)
		if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
			return exitOK
		}
		return exitUsage
	}
	cmd, args := args[0], args[1:]
	var o journalOptions
	fs := flag.NewFlagSet("journal "+cmd, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var b *binding
	switch cmd {
	case "restore":
		b = bind(fs) // it talks to tmux: every setting applies
		fs.BoolVar(&o.dryRun, "dry-run", false, "print the plan, change nothing")
	case "ls", "show", "events", "check", "compact":
		b = bind(fs, "journal", "socket-name", "socket-path")
	default:
		fmt.Fprintf(e.stderr, "tmux-mcp journal: unknown command %q\n\n%s", cmd, journalUsage)
		return exitUsage
	}
	if cmd == "show" || cmd == "events" || cmd == "restore" {
		fs.StringVar(&o.server, "server", "", "tmux server: a socket path or a -L name (default: the default server)")
	}
	if cmd == "show" || cmd == "restore" {
		fs.Uint64Var(&o.snapshot, "snapshot", 0, "snapshot number (default: the latest; for restore, the latest of an earlier server)")
	}
	if cmd == "events" {
		fs.StringVar(&o.since, "since", "", `only events since then: a duration ("1h") or an RFC 3339 time`)
		fs.IntVar(&o.limit, "limit", 0, "at most this many (the newest)")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "tmux-mcp journal %s: unexpected arguments %q\n", cmd, fs.Args())
		return exitUsage
	}
	c, err := b.resolve(e.getenv)
	if err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp journal %s: %v\n", cmd, err)
		return exitUsage
	}
	o.config = c
	path, err := c.journalPath(e.getenv)
	if err == nil && path == "" {
		err = errors.New("the journal is off (--journal off)")
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp journal %s: %v\n", cmd, err)
		return exitUsage
	}
	if err := journalCommand(ctx, cmd, path, o, e); err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp journal %s: %v\n", cmd, err)
		return exitFail
	}
	return exitOK
}

func journalCommand(ctx context.Context, cmd, path string, o journalOptions, e env) error {
	if cmd == "check" {
		if err := journal.CheckFile(path, 5*time.Second); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s: OK\n", path)
		return nil
	}
	if cmd != "restore" {
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("no journal: %w", err)
		}
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	j, err := journal.Open(path, &journal.Options{Logger: logger, RestoreCommands: o.RestoreCommands, ResumeAgents: o.ResumeAgents,
		EnvNamesOnly: o.JournalEnvNames, CommandNamesOnly: o.JournalCmdNames, MaxBytes: int64(o.JournalMaxBytes)})
	if err != nil {
		return err
	}
	defer j.Close()
	sock := o.supervisorConfig().DefaultSocket
	if o.server != "" {
		if strings.Contains(o.server, "/") {
			sock = tmux.Socket{Path: o.server}
		} else {
			sock = tmux.Socket{Name: o.server}
		}
	}
	switch cmd {
	case "ls":
		return journalLs(j, e.stdout)
	case "show":
		snap, err := j.Snapshot(sock, o.snapshot)
		if err != nil {
			return err
		}
		printSnapshot(e.stdout, snap)
		return nil
	case "events":
		return journalEvents(j, sock, o, e.stdout)
	case "compact":
		before, after, err := j.Compact()
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s: %d -> %d bytes\n", path, before, after)
		return nil
	case "restore":
		return journalRestore(ctx, j, sock, o, e.stdout)
	}
	return nil
}

func journalLs(j *journal.Journal, w io.Writer) error {
	servers, err := j.Servers()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SOCKET\tSNAPSHOTS\tEVENTS\tLAST SNAPSHOT\tLAST DEATH")
	for _, s := range servers {
		last := "-"
		if !s.LastSnapshot.IsZero() {
			last = s.LastSnapshot.Local().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", terminalSafe(s.Socket), s.Snapshots, s.Events, last, terminalSafe(orDash(s.LastDeath)))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printSnapshot prints a snapshot's tree. Environment values tmux-mcp
// recorded are never shown, only their names. Everything a pane's program
// or another client could have set (names, titles, directories, commands,
// the group, even the IDs and layout read back from tmux) is printed
// quoted, so that no byte of it reaches the terminal as a control
// sequence.
func printSnapshot(w io.Writer, s *journal.Snapshot) {
	ns, nw, np := s.Counts()
	fmt.Fprintf(w, "snapshot %d of %s, taken %s: %d sessions, %d windows, %d panes\n",
		s.Seq, terminalSafe(s.Server.Socket), s.Taken.Local().Format(time.DateTime), ns, nw, np)
	fmt.Fprintf(w, "server PID %d, tmux %s, %s\n", s.Server.PID, terminalSafe(s.Server.Version), terminalSafe(orDash(s.Server.Binary)))
	for _, sess := range s.Sessions {
		group := ""
		if sess.Group != "" {
			group = fmt.Sprintf(" group %q", sess.Group)
		}
		fmt.Fprintf(w, "session %s %q %dx%d%s\n", terminalSafe(string(sess.ID)), sess.Name, sess.Width, sess.Height, group)
		for _, win := range sess.Windows {
			fmt.Fprintf(w, "  window %s %d %q%s layout %s\n", terminalSafe(string(win.ID)), win.Index, win.Name,
				flags(win.Active, "active", win.Zoomed, "zoomed", win.AutomaticRename, "automatic-rename"), terminalSafe(win.Layout))
			for _, p := range win.Panes {
				fmt.Fprintf(w, "    pane %s %d %s %q (%q)%s\n", terminalSafe(string(p.ID)), p.Index, quotedOrDash(p.Path), p.Title, p.Command,
					flags(p.Active, "active", p.Dead, fmt.Sprintf("dead, status %d", p.DeadStatus), p.InShell, "started from its shell"))
				if len(p.Argv) > 0 {
					fmt.Fprintf(w, "      argv %q\n", p.Argv)
				}
				if c := p.Created; c != nil {
					var names []string
					for _, kv := range c.Env {
						k, _, _ := strings.Cut(kv, "=")
						names = append(names, k)
					}
					fmt.Fprintf(w, "      created by tmux-mcp: argv %q in %s, environment %s, re-run on restore: %v\n",
						c.Argv, quotedOrDash(c.Cwd), terminalSafe(orDash(strings.Join(names, ","))), c.Restore)
				}
			}
		}
	}
}

// quotedOrDash is s in Go quotes, or "-" when it is empty.
func quotedOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return strconv.Quote(s)
}

// terminalSafe returns s as it is when every rune of it is printable, and
// in Go quotes otherwise: text from the journal or from tmux never
// reaches a terminal as a control sequence.
func terminalSafe(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// flags renders the names whose condition holds as " [a, b]".
func flags(pairs ...any) string {
	var on []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i].(bool) {
			on = append(on, pairs[i+1].(string))
		}
	}
	if len(on) == 0 {
		return ""
	}
	return " [" + strings.Join(on, ", ") + "]"
}

func journalEvents(j *journal.Journal, sock tmux.Socket, o journalOptions, w io.Writer) error {
	var since time.Time
	if o.since != "" {
		if d, err := time.ParseDuration(o.since); err == nil {
			since = time.Now().Add(-d)
		} else if t, err := time.Parse(time.RFC3339, o.since); err == nil {
			since = t
		} else {
			return fmt.Errorf("--since %q: want a duration such as 1h or an RFC 3339 time", o.since)
		}
	}
	records, err := j.Events(sock, since, o.limit)
	if err != nil {
		return err
	}
	for _, r := range records {
		what := string(r.Cause) + r.Notification
		fmt.Fprintf(w, "%s  %-16s pid %-7d %s%s\n", r.Time.Local().Format("2006-01-02 15:04:05.000"), terminalSafe(string(r.Type)), r.PID,
			terminalSafe(what), terminalSafe(prefixed(what, r.Detail)))
	}
	return nil
}

func prefixed(before, s string) string {
	if before != "" && s != "" {
		return " " + s
	}
	return s
}

func journalRestore(ctx context.Context, j *journal.Journal, sock tmux.Socket, o journalOptions, w io.Writer) error {
	if o.Restore == "off" && !o.dryRun {
		return errRestoreOff
	}
	cfg := o.supervisorConfig()
	cfg.DefaultSocket = sock
	sup := supervisor.New(cfg)
	defer sup.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	srv, err := sup.Server(ctx, sock)
	if err != nil {
		return err
	}
	res, err := j.RestoreSnapshot(ctx, srv, journal.RestoreRequest{Snapshot: o.snapshot, DryRun: o.dryRun})
	if err != nil {
		return err
	}
	for _, s := range res.Steps {
		fmt.Fprintln(w, s)
	}
	for _, n := range res.Notes {
		fmt.Fprintln(w, "note:", terminalSafe(n))
	}
	for _, a := range res.Agents {
		fmt.Fprintln(w, "agent:", terminalSafe(a.String()))
	}
	if o.dryRun {
		fmt.Fprintf(w, "dry run: %d steps from snapshot %d\n", len(res.Steps), res.Snapshot)
		return nil
	}
	fmt.Fprintf(w, "applied %d of %d steps from snapshot %d\n", res.Applied, len(res.Steps), res.Snapshot)
	if len(res.Errors) > 0 {
		return fmt.Errorf("%d steps failed: %s", len(res.Errors), terminalSafe(strings.Join(res.Errors, "; ")))
	}
	return nil
}
