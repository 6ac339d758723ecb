package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/hosts"
	"github.com/tmux-mcp/tmux-mcp/journal"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
)

// defaultJournal is the journal setting's default as the README shows it;
// journalPath expands it.
const defaultJournal = "$XDG_STATE_HOME/tmux-mcp/journal.db"

// journalPath returns the journal file the settings name, "" when the
// journal is off.
func (c config) journalPath(getenv func(string) string) (string, error) {
	switch c.Journal {
	case "off":
		return "", nil
	case defaultJournal, "":
		return journal.DefaultPath(getenv)
	}
	return c.Journal, nil
}

// pipeDirs splits --pipe-dirs.
func (c config) pipeDirs() []string {
	var out []string
	for _, d := range strings.Split(c.PipeDirs, ":") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// supervisorConfig maps the settings onto the supervisor's Config.
func (c config) supervisorConfig() supervisor.Config {
	cfg := supervisor.Config{
		Binary:          c.TmuxBin,
		TmuxConfig:      c.TmuxConfig,
		PassEnv:         c.PassEnv,
		ExecOnly:        c.ExecOnly,
		NoStart:         c.NoStart,
		MaxServers:      c.MaxServers,
		CommandTimeout:  c.CommandTimeout,
		CaptureLines:    c.CaptureLines,
		CaptureBytes:    c.CaptureBytes,
		ReadRate:        c.ReadRate,
		ServerRate:      c.ServerRate,
		RateWait:        c.RateWait,
		MaxCaptureLines: c.MaxCaptureLines,
		MaxCaptureBytes: c.MaxCaptureBytes,
		ProbeInterval:   c.ProbeInterval,
		MaxWatchers:     c.MaxWatchers,
		FDWarn:          c.FDWarn,
		FDRefuse:        c.FDRefuse,
		FDLimit:         uint64(c.FDLimit),
		Restart:         death.RestartPolicy{MaxAttempts: c.RestartAttempts, HungAfter: c.HungAfter},
	}
	if c.SocketPath != "" {
		cfg.DefaultSocket.Path = c.SocketPath
	} else {
		cfg.DefaultSocket.Name = c.SocketName
	}
	return cfg
}

// hostTargets returns the hosts of --host and --hosts-file.
func (c config) hostTargets() ([]hosts.Target, error) {
	specs := slices.Clone(c.Hosts)
	if c.HostsFile != "" {
		b, err := os.ReadFile(c.HostsFile)
		if err != nil {
			return nil, fmt.Errorf("hosts file: %w", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if i := strings.Index(line, "#"); i >= 0 {
				line = line[:i]
			}
			if line = strings.TrimSpace(line); line != "" {
				specs = append(specs, line)
			}
		}
	}
	t, err := hosts.ParseTargets(specs)
	if err != nil && c.HostsFile != "" {
		return nil, fmt.Errorf("--host and %s: %w", c.HostsFile, err)
	}
	return t, err
}
