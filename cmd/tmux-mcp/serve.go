package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/hosts"
	"github.com/tmux-mcp/tmux-mcp/httpmcp"
	"github.com/tmux-mcp/tmux-mcp/journal"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/telemetry"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tools"
)

// drainTimeout bounds how long calls in flight may run after shutdown
// began.
const drainTimeout = 5 * time.Second

// serveOptions are the options of `tmux-mcp serve`.
type serveOptions struct {
	config
	tier     tools.Tier
	toolsets []string
	// http is how to serve streamable HTTP; nil serves stdio.
	http *httpmcp.Server
}

func runServe(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	// -h, -help and --help print the top-level help on stdout (serve is
	// the command that runs without one); a bad flag gets a pointer to it.
	fs.Usage = func() {}
	b := bind(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeHelp(e.stdout)
			return exitOK
		}
		fmt.Fprintln(e.stderr, "Run 'tmux-mcp --help' for the commands and flags.")
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "tmux-mcp serve: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	c, err := b.resolve(e.getenv)
	if err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp serve: %v\n", err)
		return exitUsage
	}
	opts := serveOptions{config: c}
	logger, closeLog, err := newLogger(c, e.stderr)
	if err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp serve: %v\n", err)
		return exitUsage
	}
	defer closeLog()
	if opts.tier, err = tools.ParseTier(c.Safety); err != nil {
		logger.Warn(err.Error())
	}
	if opts.toolsets, err = tools.ParseToolsets(c.Toolsets); err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp serve: %v\n", err)
		return exitUsage
	}
	if err := checkView(c, opts.tier); err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp serve: %v\n", err)
		return exitUsage
	}
	if c.HTTP != "" || c.HTTPSocket != "" {
		if opts.http, err = httpmcp.New(c.httpOptions(logger)); err != nil {
			fmt.Fprintf(e.stderr, "tmux-mcp serve: %v\n", err)
			return exitUsage
		}
	}
	plan, err := telemetry.PlanFromEnv(e.getenv, c.TraceFile)
	if err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp serve: telemetry: %v\n", err)
		return exitUsage
	}
	// MCP clients often close our stderr before stdin when they stop us,
	// and send SIGTERM a moment after closing stdin. Until runServe returns
	// neither may kill the process: a log line must not end it with SIGPIPE
	// mid-drain, and once serving has stopped (serve handles SIGINT and
	// SIGTERM until then), closing the supervisor and the bounded telemetry
	// flush finish. Catching the signals (rather than ignoring them) keeps
	// children, tmux included, on the default disposition.
	held := make(chan os.Signal, 1)
	signal.Notify(held, syscall.SIGPIPE, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(held)
	if opts.http != nil {
		// Before anything else starts: the unix socket is made under a
		// process-wide umask.
		if err := opts.http.Open(e.getenv); err != nil {
			fmt.Fprintf(e.stderr, "tmux-mcp serve: %v\n", err)
			return exitFail
		}
		defer opts.http.Close()
	}
	tel, err := telemetry.Start(ctx, plan, version(), e.getenv, logger)
	if err != nil {
		fmt.Fprintf(e.stderr, "tmux-mcp serve: %v\n", err)
		return exitUsage
	}
	// Last out: what the supervisor and the tools record while stopping
	// is flushed too.
	defer tel.Shutdown(ctx)
	if err := serve(ctx, opts, e, logger, tel); err != nil {
		logger.Error("serve", "err", err)
		return exitFail
	}
	return exitOK
}

func newLogger(c config, stderr io.Writer) (*slog.Logger, func(), error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	w, closeFn := stderr, func() {}
	if c.LogFile != "" {
		f, err := os.OpenFile(c.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("log file: %w", err)
		}
		w, closeFn = f, func() { f.Close() }
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), closeFn, nil
}

// socketDir is where tmux puts -L sockets: ${TMUX_TMPDIR:-/tmp}/tmux-UID,
// resolved as tmux resolves it (tmux.SocketDirFor).
func socketDir(getenv func(string) string) string {
	return tmux.SocketDirFor(getenv("TMUX_TMPDIR"))
}

func serve(ctx context.Context, o serveOptions, e env, logger *slog.Logger, tel *telemetry.Telemetry) error {
	j := openJournal(o.config, e.getenv, logger)
	cfg := o.supervisorConfig()
	if j != nil && o.Restore == "auto" {
		cfg.Restorer = j
	}
	// The readonly tier changes no tmux server: it observes (no start, no
	// restore, no hidden session; supervisor.Config.Observe).
	cfg.Observe = o.tier == tools.Readonly
	// Closed last: a restore still running while the supervisor closes
	// writes to it.
	defer func() {
		if err := j.Close(); err != nil {
			logger.Warn("journal close", "err", err)
		}
	}()
	sup := supervisor.New(cfg)
	defer func() {
		if err := sup.Close(); err != nil {
			logger.Warn("supervisor close", "err", err)
		}
	}()
	if j != nil {
		defer j.Watch(sup)()
	}
	stopMetrics, err := tel.ObserveSupervisor(sup)
	if err != nil {
		return fmt.Errorf("telemetry: metrics: %w", err)
	}
	defer stopMetrics()
	mcpOpts, err := tel.ServerOptions(transportName(o.http != nil))
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	tasksTraced, err := tel.TaskTracer(transportName(o.http != nil))
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	d := tools.Deps{
		Sup:          sup,
		Tier:         o.tier,
		Caller:       guard.ParseCaller(e.getenv("TMUX"), e.getenv("TMUX_PANE")),
		SocketDir:    socketDir(e.getenv),
		Log:          logger,
		Journal:      toolsJournal(j, o.Restore),
		Jobs:         toolsJobs(j),
		MaxWait:      o.MaxWait,
		ReadyTimeout: o.ReadyTimeout,
		PipeDirs:     o.pipeDirs(),
		Diagnoser:    toolDiagnoser{sup: sup, binary: sup.Config().Binary, journal: j},
	}
	d.AllowSelfInput = o.AllowSelfInput
	d.AllowOwnPane = o.AllowOwnPane
	toolOpts := tools.Options{Toolsets: o.toolsets, Settings: mcpserver.Settings{Version: version(), DrainTimeout: drainTimeout,
		ServerOptions: mcpOpts, TaskTracer: newTaskTracer(tasksTraced)}}
	router, err := startHosts(o, logger)
	if err != nil {
		return err
	}
	if router != nil {
		defer router.Close()
		toolOpts.Hosts = router
	}
	ts, err := tools.New(d, toolOpts)
	if err != nil {
		return err
	}
	defer ts.Close()
	addFixtures(ts)
	logger.Info("tmux-mcp serving", "version", version(), "tier", o.tier.String(), "tools", len(ts.Tools),
		"socket", sup.Config().DefaultSocket.String(), "transport", transportName(o.http != nil), "journal", j.Path())

	sigCtx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if o.http != nil {
		if o.View {
			startView(o, ts, e, logger)
		}
		return o.http.Serve(sigCtx, ts.MCP, ts, ts.Tasks.HTTP)
	}
	return serveStdio(sigCtx, ts, e, logger)
}

// startHosts connects to the hosts of --host and --hosts-file, each in
// the background; nil when there are none. A remote tmux-mcp runs at this
// one's safety tier: a host never allows more than this machine.
func startHosts(o serveOptions, logger *slog.Logger) (*hosts.Router, error) {
	targets, err := o.hostTargets()
	if err != nil || len(targets) == 0 {
		return nil, err
	}
	ssh := strings.Fields(o.SSH)
	if len(ssh) == 0 {
		ssh = []string{"ssh"}
	}
	self, _ := os.Executable()
	r := hosts.NewRouter(targets, hosts.Options{SSH: ssh, RemoteArgs: []string{"serve", "--safety", o.tier.String()},
		Version: version(), Install: o.HostInstall, Self: self, Log: logger})
	r.Start()
	return r, nil
}

// openJournal opens the session journal the settings name. It returns nil
// when the journal is off or cannot be opened (with a warning): tmux-mcp
// serves without it.
func openJournal(c config, getenv func(string) string, logger *slog.Logger) *journal.Journal {
	path, err := c.journalPath(getenv)
	if err != nil {
		logger.Warn("journal off: no place for it", "err", err)
		return nil
	}
	if path == "" {
		return nil
	}
	j, err := journal.Open(path, &journal.Options{Logger: logger, RestoreCommands: c.RestoreCommands, ResumeAgents: c.ResumeAgents, EnvNamesOnly: c.JournalEnvNames,
		CommandNamesOnly: c.JournalCmdNames, MaxBytes: int64(c.JournalMaxBytes)})
	if err != nil {
		logger.Warn("journal off: cannot open it", "path", path, "err", err)
		return nil
	}
	return j
}

func transportName(overHTTP bool) string {
	if overHTTP {
		return "http"
	}
	return "stdio"
}

// serveStdio serves until stdin ends or ctx is cancelled (a signal).
// Either way, calls in flight get drainTimeout to finish.
func serveStdio(ctx context.Context, ts *tools.Server, e env, logger *slog.Logger) error {
	listenCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	go func() {
		select {
		case <-ctx.Done():
			logger.Info("signal received, shutting down")
			ts.BeginShutdown()
			cancel()
		case <-listenCtx.Done():
		}
	}()
	in := &eofReader{r: e.stdin, onEOF: ts.BeginShutdown}
	s := server.NewStdioServer(ts.MCP)
	s.SetErrorLogger(log.New(&slogWriter{logger}, "", 0))
	// The tasks layer reads each message first and writes every answer:
	// its own and mcp-go's, one message at a time.
	tctx, tin, tout := ts.Tasks.Stdio(listenCtx, in, newUnescapeWriter(e.stdout))
	err := s.Listen(tctx, tin, tout)
	ts.BeginShutdown()
	dctx, dcancel := context.WithTimeout(context.Background(), drainTimeout)
	defer dcancel()
	if derr := ts.Drain(dctx); derr != nil {
		logger.Warn("drain", "err", derr)
	}
	logger.Info("tmux-mcp stopped")
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// eofReader calls onEOF once when the underlying reader ends, before the
// caller sees the end: the stdio server cancels calls in flight as soon
// as it sees EOF, and the drain must have begun by then.
type eofReader struct {
	r     io.Reader
	onEOF func()
	once  sync.Once
}

func (r *eofReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil {
		r.once.Do(r.onEOF)
	}
	return n, err
}

// slogWriter adapts mcp-go's *log.Logger output to slog.
type slogWriter struct{ l *slog.Logger }

func (w *slogWriter) Write(p []byte) (int, error) {
	w.l.Warn("mcp", "msg", string(p))
	return len(p), nil
}
