package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tools"
)

func TestSettingsPrecedence(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want func(c config) bool
	}{
		{"default", nil, nil, func(c config) bool {
			return c.SocketName == "tmux-mcp" && c.Safety == "mutating" && c.CommandTimeout == 5*time.Second && !c.ExecOnly
		}},
		{"env over default", nil, map[string]string{"TMUX_MCP_SOCKET_NAME": "agents", "TMUX_MCP_EXEC_ONLY": "1", "TMUX_MCP_READ_RATE": "5"},
			func(c config) bool { return c.SocketName == "agents" && c.ExecOnly && c.ReadRate == 5 }},
		{"flag over env", []string{"--socket-name", "flag", "--exec-only=false", "--command-timeout", "2s"},
			map[string]string{"TMUX_MCP_SOCKET_NAME": "agents", "TMUX_MCP_EXEC_ONLY": "true"},
			func(c config) bool { return c.SocketName == "flag" && !c.ExecOnly && c.CommandTimeout == 2*time.Second }},
		{"bool flag alone", []string{"--no-start"}, nil, func(c config) bool { return c.NoStart }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			b := bind(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			c, err := b.resolve(func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if !tt.want(c) {
				t.Errorf("config = %+v, not what %q wants", c, tt.name)
			}
		})
	}
}

func TestSettingsErrors(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bind(fs)
	if err := fs.Parse([]string{"--capture-lines", "-3"}); err == nil {
		t.Errorf("--capture-lines -3: got no error, want one")
	}
	b := bind(flag.NewFlagSet("t", flag.ContinueOnError))
	_, err := b.resolve(func(k string) string {
		if k == "TMUX_MCP_COMMAND_TIMEOUT" {
			return "soon"
		}
		return ""
	})
	if err == nil || !strings.Contains(err.Error(), "$TMUX_MCP_COMMAND_TIMEOUT") {
		t.Errorf("bad env: got %v, want an error naming $TMUX_MCP_COMMAND_TIMEOUT", err)
	}
}

func TestSupervisorConfig(t *testing.T) {
	c := config{SocketName: "x", SocketPath: "/tmp/s", ReadRate: 3, CaptureLines: 9}
	got := c.supervisorConfig()
	if got.DefaultSocket.Path != "/tmp/s" || got.DefaultSocket.Name != "" || got.ReadRate != 3 || got.CaptureLines != 9 {
		t.Errorf("supervisorConfig = %+v", got)
	}
}

func TestUnknownSafetyFallsBackToReadonly(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"tools", "--safety", "root"}, env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "using readonly") {
		t.Errorf("stderr %q, want a warning about readonly", errb.String())
	}
	if strings.Contains(out.String(), "create_session") || !strings.Contains(out.String(), "list_sessions") {
		t.Errorf("tools at unknown tier:\n%s\nwant readonly tools only", out.String())
	}
}

func TestToolsStats(t *testing.T) {
	var out bytes.Buffer
	code := run(context.Background(), []string{"tools", "--stats", "--safety", "destructive"}, env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }})
	want := fmt.Sprintf("%d tools", len(tools.Select(tools.Catalog(tools.Deps{}), tools.Destructive, nil)))
	if code != exitOK || !strings.Contains(out.String(), want) {
		t.Errorf("tools --stats: exit %d, %q; want %q", code, out.String(), want)
	}
}

func TestHTTPRefusesRemoteAddress(t *testing.T) {
	var errb bytes.Buffer
	code := run(context.Background(), []string{"serve", "--http", "0.0.0.0:0"}, env{stdout: io.Discard, stderr: &errb, getenv: func(string) string { return "" }})
	if code != exitUsage || !strings.Contains(errb.String(), "--http-allow-remote") {
		t.Errorf("serve --http 0.0.0.0:0: exit %d, stderr %q; want usage error naming --http-allow-remote", code, errb.String())
	}
}

func TestSupervisionSettings(t *testing.T) {
	tests := []struct {
		env     map[string]string
		check   func(supervisor.Config) bool
		wantErr string
	}{
		{env: map[string]string{}, check: func(c supervisor.Config) bool {
			d := supervisor.Defaults()
			return c.FDRefuse == d.FDRefuse && c.ProbeInterval == d.ProbeInterval && c.Restart.MaxAttempts == d.Restart.MaxAttempts &&
				c.Restart.HungAfter == d.Restart.HungAfter && c.RateWait == d.RateWait && c.FDLimit == 0 &&
				c.MaxWatchers == d.MaxWatchers
		}},
		{env: map[string]string{"TMUX_MCP_MAX_WATCHERS": "4"}, check: func(c supervisor.Config) bool { return c.MaxWatchers == 4 }},
		// 0 is none: the supervisor's zero would be its default.
		{env: map[string]string{"TMUX_MCP_MAX_WATCHERS": "0"}, check: func(c supervisor.Config) bool { return c.MaxWatchers < 0 }},
		{env: map[string]string{"TMUX_MCP_MAX_WATCHERS": "-3"}, wantErr: "$TMUX_MCP_MAX_WATCHERS: want 0 (no watcher connections) or a positive integer"},
		{env: map[string]string{"TMUX_MCP_FD_REFUSE": "0.8", "TMUX_MCP_FD_LIMIT": "4096", "TMUX_MCP_HUNG_AFTER": "30s",
			"TMUX_MCP_RESTART_ATTEMPTS": "9", "TMUX_MCP_PROBE_INTERVAL": "250ms", "TMUX_MCP_MAX_CAPTURE_LINES": "20000"},
			check: func(c supervisor.Config) bool {
				return c.FDRefuse == 0.8 && c.FDLimit == 4096 && c.Restart.HungAfter == 30*time.Second &&
					c.Restart.MaxAttempts == 9 && c.ProbeInterval == 250*time.Millisecond && c.MaxCaptureLines == 20000
			}},
		{env: map[string]string{"TMUX_MCP_FD_REFUSE": "2"}, wantErr: "$TMUX_MCP_FD_REFUSE: want a fraction"},
		{env: map[string]string{"TMUX_MCP_FD_LIMIT": "-1"}, wantErr: "$TMUX_MCP_FD_LIMIT"},
		{env: map[string]string{"TMUX_MCP_HUNG_AFTER": "later"}, wantErr: "$TMUX_MCP_HUNG_AFTER: want a positive duration"},
	}
	for _, tt := range tests {
		b := bind(flag.NewFlagSet("t", flag.ContinueOnError))
		c, err := b.resolve(func(k string) string { return tt.env[k] })
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("env %v: got %v, want an error containing %q", tt.env, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("env %v: %v", tt.env, err)
		}
		if got := c.supervisorConfig(); !tt.check(got) {
			t.Errorf("env %v: supervisor config = %+v", tt.env, got)
		}
	}
}

func TestMaxWaitSetting(t *testing.T) {
	tests := []struct {
		env, flag string
		want      time.Duration
		wantErr   string
	}{
		{want: tools.DefaultMaxWait},
		{env: "2m", want: 2 * time.Minute},
		{env: "2m", flag: "5s", want: 5 * time.Second},
		{env: "0s", wantErr: "$TMUX_MCP_MAX_WAIT: want a positive duration"},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		b := bind(fs)
		if tt.flag != "" {
			if err := fs.Parse([]string{"--max-wait", tt.flag}); err != nil {
				t.Fatal(err)
			}
		}
		c, err := b.resolve(func(k string) string {
			if k == "TMUX_MCP_MAX_WAIT" {
				return tt.env
			}
			return ""
		})
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("env %q: got %v, want an error containing %q", tt.env, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("env %q flag %q: %v", tt.env, tt.flag, err)
		case c.MaxWait != tt.want:
			t.Errorf("env %q flag %q: MaxWait = %v, want %v", tt.env, tt.flag, c.MaxWait, tt.want)
		}
	}
}

func TestPaneSettings(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	b := bind(fs)
	if err := fs.Parse([]string{"--max-wait", "2m"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TMUX_MCP_MAX_WAIT": "5s", "TMUX_MCP_READY_TIMEOUT": "500ms", "TMUX_MCP_PIPE_DIRS": "/srv/logs: :/var/tmp"}
	c, err := b.resolve(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxWait != 2*time.Minute || c.ReadyTimeout != 500*time.Millisecond || strings.Join(c.pipeDirs(), ",") != "/srv/logs,/var/tmp" {
		t.Errorf("config = max wait %v, ready %v, pipe dirs %q; want 2m (flag), 500ms, [/srv/logs /var/tmp]",
			c.MaxWait, c.ReadyTimeout, c.pipeDirs())
	}
	c, err = bind(flag.NewFlagSet("t", flag.ContinueOnError)).resolve(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxWait != 30*time.Second || c.ReadyTimeout != 2*time.Second || c.pipeDirs() != nil {
		t.Errorf("defaults = max wait %v, ready %v, pipe dirs %q; want 30s, 2s, none", c.MaxWait, c.ReadyTimeout, c.pipeDirs())
	}
	if _, err := bind(flag.NewFlagSet("t", flag.ContinueOnError)).resolve(func(k string) string {
		return map[string]string{"TMUX_MCP_READY_TIMEOUT": "0s"}[k]
	}); err == nil || !strings.Contains(err.Error(), "$TMUX_MCP_READY_TIMEOUT") {
		t.Errorf("TMUX_MCP_READY_TIMEOUT=0s: got %v, want an error naming it", err)
	}
}

// TestPassEnvSetting: --pass-env (TMUX_MCP_PASS_ENV) takes names and NAME*
// prefixes, flag over environment, and refuses what could only name
// tmux-mcp's own settings or OpenTelemetry's.
func TestPassEnvSetting(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     string
		want    []string
		wantErr string
	}{
		{"default", nil, "", nil, ""},
		{"names and prefixes", nil, "AWS_PROFILE, GO*,", []string{"AWS_PROFILE", "GO*"}, ""},
		{"flag over env", []string{"--pass-env", "A"}, "B", []string{"A"}, ""},
		{"own secret", nil, "TMUX_MCP_HTTP_TOKEN", nil, "never reach a tmux server"},
		{"own prefix", nil, "TMUX_MCP_*", nil, "never reach a tmux server"},
		{"otel", nil, "OTEL_EXPORTER_OTLP_HEADERS", nil, "never reach a tmux server"},
		{"caller's tmux", nil, "TMUX_PANE", nil, "never reach a tmux server"},
		{"not a name", nil, "A=B", nil, "want a variable name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			b := bind(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			c, err := b.resolve(func(k string) string {
				if k == "TMUX_MCP_PASS_ENV" {
					return tt.env
				}
				return ""
			})
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case strings.Join(c.PassEnv, "|") != strings.Join(tt.want, "|"):
				t.Errorf("PassEnv = %q, want %q", c.PassEnv, tt.want)
			case strings.Join(c.supervisorConfig().PassEnv, "|") != strings.Join(tt.want, "|"):
				t.Errorf("supervisor PassEnv = %q, want %q", c.supervisorConfig().PassEnv, tt.want)
			}
		})
	}
}

// TestJournalMaxBytesSetting: the journal's bound has a floor, and reaches
// the journal's options.
func TestJournalMaxBytesSetting(t *testing.T) {
	for _, tt := range []struct {
		env  string
		want int
		ok   bool
	}{{"", 64 << 20, true}, {"33554432", 32 << 20, true}, {"1048576", 0, false}, {"lots", 0, false}} {
		b := bind(flag.NewFlagSet("t", flag.ContinueOnError))
		c, err := b.resolve(func(k string) string {
			if k == "TMUX_MCP_JOURNAL_MAX_BYTES" {
				return tt.env
			}
			return ""
		})
		if (err == nil) != tt.ok || tt.ok && c.JournalMaxBytes != tt.want {
			t.Errorf("TMUX_MCP_JOURNAL_MAX_BYTES=%q: %d, %v; want %d, ok %v", tt.env, c.JournalMaxBytes, err, tt.want, tt.ok)
		}
	}
}
