package diagnostics

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Options says what to diagnose and where to look.
type Options struct {
	// Binary is the tmux binary ("tmux").
	Binary string
	// Sockets are the servers to diagnose. With All, the servers in this
	// user's socket directory (including those whose socket file was
	// deleted) and those the journal knows are added to them.
	Sockets []tmux.Socket
	All     bool
	// Since is how far back the timeline reaches (24h).
	Since time.Duration
	// ProbeTimeout bounds each tmux client diagnose sends to a server
	// (tmux.DefaultTimeout, the deadline of every tmux call in tmux-mcp):
	// a stopped or livelocked server never answers.
	ProbeTimeout time.Duration
	// Journal is tmux-mcp's journal; nil reports "skipped: no journal".
	Journal Journal
	// Health gives the running supervisor's figures (the MCP tool); nil
	// from the command line.
	Health HealthSource
	// Self adds this process's own fds and goroutines (the MCP tool).
	Self bool
	// Machine reads the system-wide facts; the zero value reads this
	// machine.
	Machine Machine
	// Now is the clock (time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Binary == "" {
		o.Binary = "tmux"
	}
	if o.Since <= 0 {
		o.Since = 24 * time.Hour
	}
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = tmux.DefaultTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Machine = o.Machine.withDefaults()
	return o
}

// Machine reads the facts about the machine that system checks compare
// against. Nil fields read this machine; tests set them to check the
// macOS checks on Linux, or to make a report reproducible.
type Machine struct {
	GOOS string // runtime.GOOS
	// System returns the system-wide PTY and file-handle counters
	// (proc.SystemResources).
	System func() proc.Resources
	// ReadFile and Glob read files such as /proc/meminfo, tmpfiles.d and
	// periodic.conf (os.ReadFile, filepath.Glob).
	ReadFile func(name string) ([]byte, error)
	Glob     func(pattern string) ([]string, error)
	// Sysctl reads a macOS sysctl by name; LaunchdMaxfiles returns the
	// output of `launchctl limit maxfiles`. Both fail off macOS.
	Sysctl          func(name string) (string, error)
	LaunchdMaxfiles func(ctx context.Context) (string, error)
	// KernelLog returns the kernel's log records (/dev/kmsg: "pri,seq,
	// usec,flags;text"), which on most systems only root may read.
	KernelLog func() ([]string, error)
}

func (m Machine) withDefaults() Machine {
	if m.GOOS == "" {
		m.GOOS = runtime.GOOS
	}
	if m.System == nil {
		m.System = proc.SystemResources
	}
	if m.ReadFile == nil {
		m.ReadFile = os.ReadFile
	}
	if m.Glob == nil {
		m.Glob = filepath.Glob
	}
	if m.Sysctl == nil {
		m.Sysctl = sysctl
	}
	if m.LaunchdMaxfiles == nil {
		m.LaunchdMaxfiles = launchdMaxfiles
	}
	if m.KernelLog == nil {
		m.KernelLog = kmsg
	}
	return m
}
