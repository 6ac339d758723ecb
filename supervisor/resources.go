package supervisor

import (
	"github.com/shirou/gopsutil/v3/process"
	"go.opentelemetry.io/otel/attribute"

	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"
)

// Resources is one sample of what a tmux server uses, read with gopsutil
// and the platform's own counters (procsample_*.go, sysres_*.go).
type Resources struct {
	PID     int    `json:"pid"`
	FDs     int    `json:"fds"`      // open file descriptors
	FDLimit uint64 `json:"fd_limit"` // RLIMIT_NOFILE soft limit
	RSS     uint64 `json:"rss_bytes"`
	Threads int    `json:"threads"`
	// CPUTime is the user and system CPU time used so far; CPUPercent is
	// the share of one core used since the previous sample (0 for the
	// first sample).
	CPUTime    time.Duration `json:"cpu_time"`
	CPUPercent float64       `json:"cpu_percent"`
	// Runnable: the process was running or waiting for a CPU when sampled
	// (state R). An idle tmux server sleeps in its event loop; one spinning
	// on a socket it cannot accept is always runnable, even on a machine so
	// busy that it gets little CPU.
	Runnable bool `json:"runnable"`
	// PTYs and PTYMax are the pseudo-terminals in use system-wide and the
	// kernel's maximum (Linux: kernel.pty.nr, kernel.pty.max; macOS: the
	// /dev/ttys* nodes and kern.tty.ptmx_max).
	PTYs   int `json:"ptys"`
	PTYMax int `json:"pty_max"`
	// FilesAllocated and FilesMax are the system-wide file handles in use
	// and allowed (Linux: fs.file-nr; macOS: kern.num_files, kern.maxfiles).
	FilesAllocated uint64    `json:"files_allocated"`
	FilesMax       uint64    `json:"files_max"`
	SampledAt      time.Time `json:"sampled_at"`
}

// FDRatio returns FDs over FDLimit (0 when the limit is unknown).
func (r Resources) FDRatio() float64 { return ratio(uint64(r.FDs), r.FDLimit) }

// PTYRatio returns PTYs over PTYMax (0 when the maximum is unknown).
func (r Resources) PTYRatio() float64 { return ratio(uint64(r.PTYs), uint64(r.PTYMax)) }

func ratio(used, limit uint64) float64 {
	if limit == 0 || limit == math.MaxUint64 {
		return 0
	}
	return float64(used) / float64(limit)
}

// SampleResources reads pid's resource use: RSS, threads and CPU time with
// gopsutil, which reads them on Linux and macOS alike; open fds, the
// RLIMIT_NOFILE soft limit and whether it runs through the platform's seam
// (sampleFDs and runnable in procsample_*.go); and the system-wide PTY
// and file-handle counters (SystemResources), which gopsutil does not
// cover. With prev, a sample of the same process, it also computes
// CPUPercent. A process that is gone gives an error matching
// os.ErrNotExist. On Linux it starts no process (gopsutil built without
// cgo runs ps on macOS).
func SampleResources(ctx context.Context, pid int, prev *Resources) (Resources, error) {
	r := Resources{PID: pid, SampledAt: time.Now()}
	// Not process.NewProcess: it checks that pid exists with
	// os.FindProcess, which opens a pidfd that only the garbage collector
	// closes (one per server per sample: fds 8 -> 119 between
	// collections). kill(2) and procfs answer the same without an fd, and
	// gopsutil's readers need no more than the PID.
	if !PIDAlive(pid, 0) {
		return Resources{}, fmt.Errorf("sample resources of pid %d: %w", pid, os.ErrNotExist)
	}
	p := &process.Process{Pid: int32(pid)}
	steps := []func() error{
		func() error { return sampleFDs(ctx, p, &r) },
		func() error {
			m, err := p.MemoryInfoWithContext(ctx)
			if err == nil {
				r.RSS = m.RSS
			}
			return err
		},
		func() error {
			n, err := p.NumThreadsWithContext(ctx)
			r.Threads = int(n)
			return err
		},
		func() error {
			t, err := p.TimesWithContext(ctx)
			if err == nil {
				r.CPUTime = time.Duration((t.User + t.System) * float64(time.Second))
			}
			return err
		},
	}
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return Resources{}, err
		}
		if err := step(); err != nil {
			if !PIDAlive(pid, 0) {
				err = errors.Join(err, os.ErrNotExist)
			}
			return Resources{}, fmt.Errorf("sample resources of pid %d: %w", pid, err)
		}
	}
	r.Runnable = runnable(pid)
	if prev != nil && prev.PID == pid && r.SampledAt.After(prev.SampledAt) && r.CPUTime >= prev.CPUTime {
		wall := r.SampledAt.Sub(prev.SampledAt)
		r.CPUPercent = 100 * float64(r.CPUTime-prev.CPUTime) / float64(wall)
	}
	sys := SystemResources()
	r.PTYs, r.PTYMax, r.FilesAllocated, r.FilesMax = sys.PTYs, sys.PTYMax, sys.FilesAllocated, sys.FilesMax
	return r, nil
}

// ErrResourceExhausted matches the error of a call refused because the
// server is close to running out of file descriptors or PTYs.
var ErrResourceExhausted = errors.New("supervisor: resource exhausted")

// ResourceExhaustedError is a pane-creating call refused before the server
// runs out of a resource (an fd-exhausted server livelocks for good).
type ResourceExhaustedError struct {
	Resource    string // "fds" or "ptys"
	Used, Limit uint64
}

func (e *ResourceExhaustedError) Error() string {
	pct := int(100 * ratio(e.Used, e.Limit))
	switch e.Resource {
	case resFDs:
		return fmt.Sprintf("refusing to create panes: tmux server has %d of %d file descriptors open (%d%%); close panes or raise the limit",
			e.Used, e.Limit, pct)
	case resPTYs:
		return fmt.Sprintf("refusing to create panes: %d of %d pseudo-terminals are in use on this system (%d%%); close panes or raise kernel.pty.max",
			e.Used, e.Limit, pct)
	}
	return fmt.Sprintf("refusing to create panes: %s at %d of %d (%d%%)", e.Resource, e.Used, e.Limit, pct)
}

// Is matches ErrResourceExhausted.
func (e *ResourceExhaustedError) Is(target error) bool { return target == ErrResourceExhausted }

// Resource names, as in Event.Resource.
const (
	resFDs   = "fds"
	resPTYs  = "ptys"
	resFiles = "files"
)

// resourceLevel is one resource's use against its limit.
type resourceLevel struct {
	Resource    string
	Used, Limit uint64
	Ratio       float64
}

// evaluateResources compares a sample with the warning and refusal
// thresholds (fractions of the limit). It returns the resources at or above
// warn, and a *ResourceExhaustedError for the first of fds and PTYs at or
// above refuse. System-wide file handles only warn. It is pure.
func evaluateResources(r Resources, warn, refuse float64) (warnings []resourceLevel, refuseErr error) {
	levels := []resourceLevel{
		{Resource: resFDs, Used: uint64(r.FDs), Limit: r.FDLimit},
		{Resource: resPTYs, Used: uint64(r.PTYs), Limit: uint64(r.PTYMax)},
		{Resource: resFiles, Used: r.FilesAllocated, Limit: r.FilesMax},
	}
	for _, l := range levels {
		l.Ratio = ratio(l.Used, l.Limit)
		if l.Ratio == 0 {
			continue
		}
		if l.Ratio >= warn {
			warnings = append(warnings, l)
		}
		if refuseErr == nil && l.Ratio >= refuse && l.Resource != resFiles {
			refuseErr = &ResourceExhaustedError{Resource: l.Resource, Used: l.Used, Limit: l.Limit}
		}
	}
	return warnings, refuseErr
}

// paneCreators are the tmux commands (and aliases) that allocate a PTY and
// an fd in the server.
var paneCreators = []struct{ name, alias string }{
	{"new-session", "new"},
	{"new-window", "neww"},
	{"split-window", "splitw"},
	{"respawn-pane", "respawnp"},
	{"respawn-window", "respawnw"},
}

// createsPane reports whether a tmux command line (arguments without the
// binary and socket flags, possibly several commands separated by ";")
// would create a pane. tmux accepts any unambiguous prefix of a command
// name, so prefixes count too; an ambiguous prefix would fail in tmux
// anyway.
func createsPane(args []string) bool {
	cmdStart := true
	for _, a := range args {
		if cmdStart && isPaneCreator(a) {
			return true
		}
		cmdStart = a == ";" || strings.HasSuffix(a, ";") && !strings.HasSuffix(a, `\;`)
	}
	return false
}

func isPaneCreator(name string) bool {
	name = strings.TrimSuffix(name, ";")
	if name == "" {
		return false
	}
	for _, c := range paneCreators {
		if name == c.alias || strings.HasPrefix(c.name, name) {
			return true
		}
	}
	return false
}

// resourceGate refuses commands that create panes when the server is close
// to its fd limit or the system to its PTY maximum. It samples afresh:
// reading /proc/PID/fd costs microseconds, and a stale sample is how a
// server livelocks.
func (s *Server) resourceGate(ctx context.Context) error {
	id := s.identity()
	if id.pid <= 0 {
		return nil
	}
	r, err := s.sample(ctx, id.pid)
	if err != nil {
		return nil // the process may be gone; the call itself will tell
	}
	// Judge what the server will hold once the command ran: the client that
	// carries it (a socket plus the stdin and stdout it passes) and the new
	// pane's pty. A server that reaches its limit livelocks.
	projected := r
	projected.FDs += fdsPerNewPane
	_, refuse := evaluateResources(projected, s.cfg.FDWarn, s.cfg.FDRefuse)
	var exhausted *ResourceExhaustedError
	if errors.As(refuse, &exhausted) {
		if exhausted.Resource == resFDs {
			exhausted.Used = uint64(r.FDs)
		}
		s.bus.emit(Event{Type: EventResourceRefused, Socket: s.sock, PID: id.pid, Resource: exhausted.Resource,
			Used: exhausted.Used, Limit: exhausted.Limit, Ratio: ratio(exhausted.Used, exhausted.Limit)})
		spanEvent(ctx, "tmux.resource_refused", attribute.String("tmux.resource", exhausted.Resource),
			attribute.Int64("tmux.resource.used", int64(exhausted.Used)), attribute.Int64("tmux.resource.limit", int64(exhausted.Limit)))
	}
	return refuse
}

// fdsPerNewPane is what creating a pane may add to the server's open fds:
// an exec client's socket, stdin and stdout, and the pane's pty master.
const fdsPerNewPane = 4

// sample takes a resource sample of the server process (CPU measured
// since the previous one) and records it.
func (s *Server) sample(ctx context.Context, pid int) (Resources, error) {
	s.mu.Lock()
	prev := s.res
	s.mu.Unlock()
	r, err := SampleResources(ctx, pid, &prev)
	if err != nil {
		return r, err
	}
	if id := s.identity(); r.FDLimit == 0 && id.owned != nil && id.owned.PID == pid {
		// Where one process cannot read another's limits (macOS), the
		// limit we started the server with is known.
		r.FDLimit = id.owned.FDLimit
	}
	s.recordResources(r)
	return r, nil
}

// recordResources stores a sample and emits a warning the first time a
// resource crosses the warning threshold (again after it fell below).
func (s *Server) recordResources(r Resources) {
	levels, _ := evaluateResources(r, s.cfg.FDWarn, s.cfg.FDRefuse)
	s.mu.Lock()
	s.res = r
	var emit []resourceLevel
	seen := map[string]bool{}
	for _, l := range levels {
		seen[l.Resource] = true
		if !s.warned[l.Resource] {
			s.warned[l.Resource] = true
			emit = append(emit, l)
		}
	}
	for k := range s.warned {
		if !seen[k] {
			delete(s.warned, k)
		}
	}
	s.mu.Unlock()
	for _, l := range emit {
		s.bus.emit(Event{Type: EventResourceWarning, Socket: s.sock, PID: r.PID, Resource: l.Resource,
			Used: l.Used, Limit: l.Limit, Ratio: l.Ratio})
	}
}
