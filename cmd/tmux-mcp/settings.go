package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/hosts"
	"github.com/tmux-mcp/tmux-mcp/httpmcp"
	"github.com/tmux-mcp/tmux-mcp/journal"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tools"
)

// config is every setting's value after flag > environment > default.
type config struct {
	SocketName      string
	SocketPath      string
	TmuxBin         string
	TmuxConfig      string
	PassEnv         []string
	Safety          string
	Toolsets        string
	HTTP            string
	HTTPSocket      string
	HTTPAllowRemote bool
	HTTPTokenFile   string
	HTTPToken       string
	HTTPNoAuth      bool
	HTTPOrigins     string
	HTTPMaxBody     int
	HTTPReadHeader  time.Duration
	HTTPRead        time.Duration
	HTTPIdle        time.Duration
	HTTPMaxConns    int
	HTTPMaxSessions int
	HTTPSessionTTL  time.Duration
	LogFile         string
	LogLevel        string
	TraceFile       string
	ExecOnly        bool
	NoStart         bool
	MaxServers      int
	CommandTimeout  time.Duration
	CaptureLines    int
	CaptureBytes    int
	ReadRate        float64
	ServerRate      float64
	RateWait        time.Duration
	MaxCaptureLines int
	MaxCaptureBytes int
	ProbeInterval   time.Duration
	MaxWatchers     int
	FDWarn          float64
	FDRefuse        float64
	FDLimit         int
	RestartAttempts int
	HungAfter       time.Duration
	Journal         string
	Restore         string
	RestoreCommands bool
	ResumeAgents    bool
	JournalEnvNames bool
	JournalCmdNames bool
	JournalMaxBytes int
	MaxWait         time.Duration
	ReadyTimeout    time.Duration
	PipeDirs        string
	AllowSelfInput  bool
	AllowOwnPane    bool
	Hosts           []string
	HostsFile       string
	SSH             string
	HostInstall     bool
	View            bool
	ViewInput       bool
}

// setting is one row of the settings table: it drives the flag, the
// environment variable and the README's settings table. A setting without
// a Flag is read from the environment only: it holds a secret, which a
// flag would show to every user of the machine in ps.
type setting struct {
	Flag    string
	Env     string
	Default string
	Usage   string
	Bool    bool
	// Repeat: the flag may be given more than once; the values add up
	// (separated by a space).
	Repeat bool
	set    func(c *config, v string) error
}

// settings is the one settings table. Defaults of supervisor limits come
// from the supervisor itself.
func settings() []setting {
	def := supervisor.Defaults()
	str := func(dst func(*config) *string) func(*config, string) error {
		return func(c *config, v string) error { *dst(c) = v; return nil }
	}
	boolean := func(dst func(*config) *bool) func(*config, string) error {
		return func(c *config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("want true or false")
			}
			*dst(c) = b
			return nil
		}
	}
	positive := func(dst func(*config) *int) func(*config, string) error {
		return func(c *config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return errors.New("want a positive integer")
			}
			*dst(c) = n
			return nil
		}
	}
	rate := func(dst func(*config) *float64) func(*config, string) error {
		return func(c *config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 {
				return errors.New("want a positive number (per second)")
			}
			*dst(c) = f
			return nil
		}
	}
	duration := func(dst func(*config) *time.Duration) func(*config, string) error {
		return func(c *config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return errors.New("want a positive duration such as 5s")
			}
			*dst(c) = d
			return nil
		}
	}
	fraction := func(dst func(*config) *float64) func(*config, string) error {
		return func(c *config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 || f > 1 {
				return errors.New("want a fraction above 0 and at most 1, such as 0.9")
			}
			*dst(c) = f
			return nil
		}
	}
	maxWatchers := func(c *config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errors.New("want 0 (no watcher connections) or a positive integer")
		}
		if n == 0 {
			n = -1 // the supervisor's "none": its zero means the default
		}
		c.MaxWatchers = n
		return nil
	}
	fdLimit := func(c *config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errors.New("want 0 (the highest allowed) or a positive integer")
		}
		c.FDLimit = n
		return nil
	}
	return []setting{
		{Flag: "socket-name", Env: "TMUX_MCP_SOCKET_NAME", Default: def.DefaultSocket.Name,
			Usage: "default tmux server, by socket name (tmux -L)", set: str(func(c *config) *string { return &c.SocketName })},
		{Flag: "socket-path", Env: "TMUX_MCP_SOCKET_PATH",
			Usage: "default tmux server, by socket path (tmux -S); wins over --socket-name", set: str(func(c *config) *string { return &c.SocketPath })},
		{Flag: "tmux-bin", Env: "TMUX_MCP_TMUX_BIN", Default: def.Binary,
			Usage: "tmux binary", set: str(func(c *config) *string { return &c.TmuxBin })},
		{Flag: "tmux-config", Env: "TMUX_MCP_TMUX_CONFIG",
			Usage: "config file (tmux -f) for servers tmux-mcp starts; empty: tmux's default", set: str(func(c *config) *string { return &c.TmuxConfig })},
		{Flag: "pass-env", Env: "TMUX_MCP_PASS_ENV",
			Usage: "comma-separated names (or NAME* prefixes) of tmux-mcp's environment that tmux servers it starts, and so their panes, inherit besides " +
				strings.Join(tmux.ServerEnvNames(), ", ") + "; TMUX_MCP_* and OTEL_* never do", set: func(c *config, v string) error {
				var names []string
				for _, n := range strings.Split(v, ",") {
					if n = strings.TrimSpace(n); n != "" {
						names = append(names, n)
					}
				}
				if err := tmux.CheckPassEnv(names); err != nil {
					return err
				}
				c.PassEnv = names
				return nil
			}},
		{Flag: "safety", Env: "TMUX_MCP_SAFETY", Default: "mutating",
			Usage: "safety tier: readonly, mutating or destructive (unknown values fall back to readonly)", set: str(func(c *config) *string { return &c.Safety })},
		{Flag: "toolsets", Env: "TMUX_MCP_TOOLSETS", Default: "all",
			Usage: "comma-separated toolsets to serve: all; " + strings.Join(tools.PresetIDs(), ", ") + " (the tools that drive panes, for clients with a tool cap); or groups: " + strings.Join(tools.GroupIDs(), ", "), set: str(func(c *config) *string { return &c.Toolsets })},
		{Flag: "http", Env: "TMUX_MCP_HTTP",
			Usage: "serve streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio", set: str(func(c *config) *string { return &c.HTTP })},
		{Flag: "http-socket", Env: "TMUX_MCP_HTTP_SOCKET",
			Usage: "serve streamable HTTP on this unix socket (created 0600) instead of stdio", set: str(func(c *config) *string { return &c.HTTPSocket })},
		{Flag: "http-allow-remote", Env: "TMUX_MCP_HTTP_ALLOW_REMOTE", Default: "false", Bool: true,
			Usage: "allow --http on a non-loopback address (never without a token; put TLS in front)", set: boolean(func(c *config) *bool { return &c.HTTPAllowRemote })},
		{Flag: "http-token-file", Env: "TMUX_MCP_HTTP_TOKEN_FILE",
			Usage: "file (mode 0600) holding the HTTP bearer token; unset: a new token each start, in a file under $XDG_RUNTIME_DIR/tmux-mcp (else $XDG_STATE_HOME/tmux-mcp) whose path is logged", set: str(func(c *config) *string { return &c.HTTPTokenFile })},
		{Env: "TMUX_MCP_HTTP_TOKEN",
			Usage: "the HTTP bearer token itself (environment only: a flag would show it in ps)", set: str(func(c *config) *string { return &c.HTTPToken })},
		{Flag: "http-no-auth", Env: "TMUX_MCP_HTTP_NO_AUTH", Default: "false", Bool: true,
			Usage: "serve HTTP without a bearer token (loopback or --http-socket only; refused with --http-allow-remote)", set: boolean(func(c *config) *bool { return &c.HTTPNoAuth })},
		{Flag: "http-origins", Env: "TMUX_MCP_HTTP_ORIGINS", Default: httpmcp.DefaultOrigins,
			Usage: "browser origins HTTP accepts, comma-separated [scheme://]host[:port or :*] (no scheme: http and https); another Origin gets 403, none is fine", set: func(c *config, v string) error {
				if err := httpmcp.CheckOrigins(v); err != nil {
					return err
				}
				c.HTTPOrigins = v
				return nil
			}},
		{Flag: "http-max-body", Env: "TMUX_MCP_HTTP_MAX_BODY", Default: strconv.Itoa(httpmcp.DefaultMaxBody),
			Usage: "largest HTTP request body in bytes; larger gets 413", set: positive(func(c *config) *int { return &c.HTTPMaxBody })},
		{Flag: "http-read-header-timeout", Env: "TMUX_MCP_HTTP_READ_HEADER_TIMEOUT", Default: httpmcp.DefaultReadHeaderTimeout.String(),
			Usage: "time an HTTP client has to send a request's headers", set: duration(func(c *config) *time.Duration { return &c.HTTPReadHeader })},
		{Flag: "http-read-timeout", Env: "TMUX_MCP_HTTP_READ_TIMEOUT", Default: httpmcp.DefaultReadTimeout.String(),
			Usage: "time an HTTP client has to send a whole request, body included (not the reply, which may stream)", set: duration(func(c *config) *time.Duration { return &c.HTTPRead })},
		{Flag: "http-idle-timeout", Env: "TMUX_MCP_HTTP_IDLE_TIMEOUT", Default: httpmcp.DefaultIdleTimeout.String(),
			Usage: "how long an idle keep-alive HTTP connection stays open", set: duration(func(c *config) *time.Duration { return &c.HTTPIdle })},
		{Flag: "http-max-conns", Env: "TMUX_MCP_HTTP_MAX_CONNS", Default: strconv.Itoa(httpmcp.DefaultMaxConns),
			Usage: "concurrent HTTP connections; more are answered 503 and closed", set: positive(func(c *config) *int { return &c.HTTPMaxConns })},
		{Flag: "http-max-sessions", Env: "TMUX_MCP_HTTP_MAX_SESSIONS", Default: strconv.Itoa(httpmcp.DefaultMaxSessions),
			Usage: "MCP sessions open at once over HTTP; another initialize gets 503", set: positive(func(c *config) *int { return &c.HTTPMaxSessions })},
		{Flag: "http-session-ttl", Env: "TMUX_MCP_HTTP_SESSION_TTL", Default: httpmcp.DefaultSessionTTL.String(),
			Usage: "an MCP session over HTTP without a request for this long ends (its client gets 404 and initializes anew)", set: duration(func(c *config) *time.Duration { return &c.HTTPSessionTTL })},
		{Flag: "view", Env: "TMUX_MCP_VIEW", Default: "false", Bool: true,
			Usage: "serve a live view of the servers, panes, agents and jobs at /view/ of --http (same token; read-only)", set: boolean(func(c *config) *bool { return &c.View })},
		{Flag: "view-input", Env: "TMUX_MCP_VIEW_INPUT", Default: "false", Bool: true,
			Usage: "let the --view page type into panes (needs --safety destructive)", set: boolean(func(c *config) *bool { return &c.ViewInput })},
		{Flag: "log-file", Env: "TMUX_MCP_LOG_FILE",
			Usage: "write logs to this file instead of stderr", set: str(func(c *config) *string { return &c.LogFile })},
		{Flag: "log-level", Env: "TMUX_MCP_LOG_LEVEL", Default: "info",
			Usage: "debug, info, warn or error", set: func(c *config, v string) error {
				switch v {
				case "debug", "info", "warn", "error":
					c.LogLevel = v
					return nil
				}
				return errors.New("want debug, info, warn or error")
			}},
		{Flag: "trace-file", Env: "TMUX_MCP_TRACE_FILE",
			Usage: "append spans to this file as JSON lines (OTEL_* variables configure OTLP export)", set: str(func(c *config) *string { return &c.TraceFile })},
		{Flag: "exec-only", Env: "TMUX_MCP_EXEC_ONLY", Default: "false", Bool: true,
			Usage: "run every tmux command as a subprocess (no control mode)", set: boolean(func(c *config) *bool { return &c.ExecOnly })},
		{Flag: "no-start", Env: "TMUX_MCP_NO_START", Default: "false", Bool: true,
			Usage: "never start a tmux server; only adopt running ones", set: boolean(func(c *config) *bool { return &c.NoStart })},
		{Flag: "max-servers", Env: "TMUX_MCP_MAX_SERVERS", Default: strconv.Itoa(def.MaxServers),
			Usage: "most tmux servers one tmux-mcp process supervises; calls naming another fail", set: positive(func(c *config) *int { return &c.MaxServers })},
		{Flag: "command-timeout", Env: "TMUX_MCP_COMMAND_TIMEOUT", Default: def.CommandTimeout.String(),
			Usage: "deadline of one tmux command", set: duration(func(c *config) *time.Duration { return &c.CommandTimeout })},
		{Flag: "capture-lines", Env: "TMUX_MCP_CAPTURE_LINES", Default: strconv.Itoa(def.CaptureLines),
			Usage: "default cap on lines per capture", set: positive(func(c *config) *int { return &c.CaptureLines })},
		{Flag: "capture-bytes", Env: "TMUX_MCP_CAPTURE_BYTES", Default: strconv.Itoa(def.CaptureBytes),
			Usage: "default cap on bytes per capture", set: positive(func(c *config) *int { return &c.CaptureBytes })},
		{Flag: "read-rate", Env: "TMUX_MCP_READ_RATE", Default: strconv.FormatFloat(def.ReadRate, 'g', -1, 64),
			Usage: "captures per second per pane that reach tmux", set: rate(func(c *config) *float64 { return &c.ReadRate })},
		{Flag: "server-rate", Env: "TMUX_MCP_SERVER_RATE", Default: strconv.FormatFloat(def.ServerRate, 'g', -1, 64),
			Usage: "commands per second one tmux server receives", set: rate(func(c *config) *float64 { return &c.ServerRate })},
		{Flag: "rate-wait", Env: "TMUX_MCP_RATE_WAIT", Default: def.RateWait.String(),
			Usage: "how long a call over its rate may wait for a token before it fails", set: duration(func(c *config) *time.Duration { return &c.RateWait })},
		{Flag: "max-capture-lines", Env: "TMUX_MCP_MAX_CAPTURE_LINES", Default: strconv.Itoa(def.MaxCaptureLines),
			Usage: "ceiling a capture may raise its line cap to", set: positive(func(c *config) *int { return &c.MaxCaptureLines })},
		{Flag: "max-capture-bytes", Env: "TMUX_MCP_MAX_CAPTURE_BYTES", Default: strconv.Itoa(def.MaxCaptureBytes),
			Usage: "ceiling a capture may raise its byte cap to", set: positive(func(c *config) *int { return &c.MaxCaptureBytes })},
		{Flag: "max-wait", Env: "TMUX_MCP_MAX_WAIT", Default: tools.DefaultMaxWait.String(),
			Usage: "ceiling on a waiting tool's timeout (wait_for_text, run_command, wait_for_channel); longer timeouts are clamped to it", set: duration(func(c *config) *time.Duration { return &c.MaxWait })},
		{Flag: "probe-interval", Env: "TMUX_MCP_PROBE_INTERVAL", Default: def.ProbeInterval.String(),
			Usage: "how often each server is probed and its resources sampled", set: duration(func(c *config) *time.Duration { return &c.ProbeInterval })},
		{Flag: "max-watchers", Env: "TMUX_MCP_MAX_WATCHERS", Default: strconv.Itoa(def.MaxWatchers),
			Usage: "control clients per tmux server that follow a session's output (one per session captured or waited on); captures beyond them are proven by a state probe, waits poll; 0: none", set: maxWatchers},
		{Flag: "fd-warn", Env: "TMUX_MCP_FD_WARN", Default: strconv.FormatFloat(def.FDWarn, 'g', -1, 64),
			Usage: "fraction of the server's fd limit (and of the PTY maximum) that raises a warning", set: fraction(func(c *config) *float64 { return &c.FDWarn })},
		{Flag: "fd-refuse", Env: "TMUX_MCP_FD_REFUSE", Default: strconv.FormatFloat(def.FDRefuse, 'g', -1, 64),
			Usage: "fraction at which new sessions, windows and panes are refused", set: fraction(func(c *config) *float64 { return &c.FDRefuse })},
		{Flag: "fd-limit", Env: "TMUX_MCP_FD_LIMIT", Default: "0",
			Usage: "fd limit (RLIMIT_NOFILE) of servers tmux-mcp starts; 0: the highest allowed", set: fdLimit},
		{Flag: "restart-attempts", Env: "TMUX_MCP_RESTART_ATTEMPTS", Default: strconv.Itoa(def.Restart.MaxAttempts),
			Usage: "restart attempts after a server death before giving up", set: positive(func(c *config) *int { return &c.RestartAttempts })},
		{Flag: "hung-after", Env: "TMUX_MCP_HUNG_AFTER", Default: def.Restart.HungAfter.String(),
			Usage: "how long a live server may answer nothing before it is terminated and restarted (6 times as long while it keeps using CPU: busy, not stopped)", set: duration(func(c *config) *time.Duration { return &c.HungAfter })},
		{Flag: "journal", Env: "TMUX_MCP_JOURNAL", Default: defaultJournal,
			Usage: "session journal file (~/.local/state/tmux-mcp/journal.db without XDG_STATE_HOME), or off", set: str(func(c *config) *string { return &c.Journal })},
		{Flag: "restore", Env: "TMUX_MCP_RESTORE", Default: "auto",
			Usage: "after a server death: auto (restore its sessions from the journal), manual (only restore_sessions or tmux-mcp journal restore), off", set: func(c *config, v string) error {
				switch v {
				case "auto", "manual", "off":
					c.Restore = v
					return nil
				}
				return errors.New("want auto, manual or off")
			}},
		{Flag: "restore-commands", Env: "TMUX_MCP_RESTORE_COMMANDS", Default: "false", Bool: true,
			Usage: "re-run every pane's command on restore (otherwise only panes created with the restore flag); WARNING: re-types whatever ran in each pane's foreground at the crash, destructive commands included", set: boolean(func(c *config) *bool { return &c.RestoreCommands })},
		{Flag: "resume-agents", Env: "TMUX_MCP_RESUME_AGENTS", Default: "false", Bool: true,
			Usage: "on restore, start each agent CLI a pane ran (Claude Code, Codex CLI) again with its own resume of the conversation it was writing to; otherwise an agent's pane comes back as a shell in its directory (restore_sessions resume_agents does it on demand)", set: boolean(func(c *config) *bool { return &c.ResumeAgents })},
		{Flag: "journal-env-names-only", Env: "TMUX_MCP_JOURNAL_ENV_NAMES_ONLY", Default: "false", Bool: true,
			Usage: "store only the names of the environment given to create_session and friends in the journal (otherwise values are stored in plain text in the 0600 file); restored panes then go without them", set: boolean(func(c *config) *bool { return &c.JournalEnvNames })},
		{Flag: "journal-command-names-only", Env: "TMUX_MCP_JOURNAL_COMMAND_NAMES_ONLY", Default: "false", Bool: true,
			Usage: "store panes' commands by name only in the journal (otherwise the full argv of each pane's foreground process and the command it started with, arguments such as --password=... included, for 50 snapshots); --restore-commands then re-runs only panes tmux-mcp created", set: boolean(func(c *config) *bool { return &c.JournalCmdNames })},
		{Flag: "journal-max-bytes", Env: "TMUX_MCP_JOURNAL_MAX_BYTES", Default: strconv.Itoa(journal.DefaultMaxBytes),
			Usage: "bound on the journal file: past it the oldest events and snapshots are dropped (each server keeps its latest) and the file is rewritten; it stays under this plus 16 MiB and one write (at least " + strconv.Itoa(journal.MinMaxBytes) + ")",
			set: func(c *config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < journal.MinMaxBytes {
					return fmt.Errorf("want a number of bytes, at least %d", journal.MinMaxBytes)
				}
				c.JournalMaxBytes = n
				return nil
			}},
		{Flag: "ready-timeout", Env: "TMUX_MCP_READY_TIMEOUT", Default: tools.DefaultReadyTimeout.String(),
			Usage: "how long the first keys to a new pane wait for it to print or move its cursor", set: duration(func(c *config) *time.Duration { return &c.ReadyTimeout })},
		{Flag: "pipe-dirs", Env: "TMUX_MCP_PIPE_DIRS",
			Usage: "colon-separated directories pipe_pane may write into, besides the pane's current directory and the temp directory", set: str(func(c *config) *string { return &c.PipeDirs })},
		{Flag: "allow-own-pane", Env: "TMUX_MCP_ALLOW_OWN_PANE", Default: "false", Bool: true,
			Usage: "at the destructive tier, let tools type into, respawn, kill or clear the pane tmux-mcp runs in (or change its copy mode), and kill its window, session or server, without asking the user", set: boolean(func(c *config) *bool { return &c.AllowOwnPane })},
		{Flag: "allow-self-input", Env: "TMUX_MCP_ALLOW_SELF_INPUT", Default: "false", Bool: true,
			Usage: "at the destructive tier, let the tools that type (send_keys, paste_text, run_command, ...) target tmux-mcp's own pane without asking (--allow-own-pane allows this and more)", set: boolean(func(c *config) *bool { return &c.AllowSelfInput })},
		{Flag: "host", Env: "TMUX_MCP_HOSTS", Repeat: true,
			Usage: "another machine whose tmux the tools may name with host: NAME=ssh://[user@]host[:port]; tmux-mcp runs tmux-mcp there over ssh (repeat the flag, or separate with spaces; docs/hosts.md)",
			set: func(c *config, v string) error {
				specs := hosts.SplitSpecs(v)
				if _, err := hosts.ParseTargets(specs); err != nil {
					return err
				}
				c.Hosts = specs
				return nil
			}},
		{Flag: "hosts-file", Env: "TMUX_MCP_HOSTS_FILE",
			Usage: "a file of hosts as --host takes them, one per line (# starts a comment); added to --host", set: str(func(c *config) *string { return &c.HostsFile })},
		{Flag: "ssh", Env: "TMUX_MCP_SSH", Default: "ssh",
			Usage: "the ssh command that reaches --host machines, with options of yours split at spaces (ssh -F ~/.ssh/tmux-mcp.conf); tmux-mcp adds -T and BatchMode=yes", set: str(func(c *config) *string { return &c.SSH })},
		{Flag: "host-install", Env: "TMUX_MCP_HOST_INSTALL", Default: "false", Bool: true,
			Usage: "copy this binary to a --host that lacks tmux-mcp or runs another version (same OS and CPU; checked by SHA-256; into ~/.cache/tmux-mcp/bin there)", set: boolean(func(c *config) *bool { return &c.HostInstall })},
	}
}

// flagValue records whether a flag was given and its raw value.
type flagValue struct {
	s     *setting
	value string
	given bool
}

func (f *flagValue) String() string {
	if f == nil || f.s == nil {
		return ""
	}
	return f.value
}

func (f *flagValue) Set(v string) error {
	var probe config
	if err := f.s.set(&probe, v); err != nil {
		return err
	}
	if f.s.Repeat && f.given {
		v = f.value + " " + v
	}
	f.value, f.given = v, true
	return nil
}

func (f *flagValue) IsBoolFlag() bool { return f.s.Bool }

// binding ties the named settings to a flag set.
type binding struct {
	flags map[string]*flagValue
	order []string
}

// bind registers the named settings (all when none are named) on fs.
func bind(fs *flag.FlagSet, names ...string) *binding {
	b := &binding{flags: map[string]*flagValue{}}
	for _, s := range settings() {
		if s.Flag == "" || len(names) > 0 && !contains(names, s.Flag) {
			continue
		}
		s := s
		fv := &flagValue{s: &s, value: s.Default}
		usage := s.Usage + " [$" + s.Env + "]"
		fs.Var(fv, s.Flag, usage)
		b.flags[s.Flag] = fv
		b.order = append(b.order, s.Flag)
	}
	return b
}

// resolve returns the config: for each bound setting the flag if given,
// else the environment variable if set, else the default.
func (b *binding) resolve(getenv func(string) string) (config, error) {
	var c config
	for _, s := range settings() {
		fv, ok := b.flags[s.Flag]
		v := s.Default
		switch {
		case ok && fv.given:
			v = fv.value
		case getenv(s.Env) != "":
			v = getenv(s.Env)
			if err := s.set(&c, v); err != nil {
				return config{}, fmt.Errorf("$%s: %w", s.Env, err)
			}
			continue
		}
		if v == "" && s.Bool {
			v = "false"
		}
		if v == "" {
			continue
		}
		if err := s.set(&c, v); err != nil {
			return config{}, fmt.Errorf("--%s: %w", s.Flag, err)
		}
	}
	return c, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// settingsMarkdown renders the README settings table.
func settingsMarkdown() string {
	var b strings.Builder
	b.WriteString("| Flag | Environment | Default | Meaning |\n|---|---|---|---|\n")
	for _, s := range settings() {
		def := "`" + s.Default + "`"
		if s.Default == "" {
			def = "-"
		}
		flag := "`--" + s.Flag + "`"
		if s.Flag == "" {
			flag = "-"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", flag, s.Env, def, s.Usage)
	}
	return b.String()
}
