package supervisor

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Resources is one sample of what a tmux server uses, read from procfs
// (Linux).
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
	// PTYs and PTYMax are the pseudo-terminals in use system-wide and the
	// kernel's maximum (kernel.pty.nr, kernel.pty.max).
	PTYs   int `json:"ptys"`
	PTYMax int `json:"pty_max"`
	// FilesAllocated and FilesMax are the system-wide file handles in use
	// and allowed (fs.file-nr).
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

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times: 100 on every
// Linux architecture's user ABI.
const clockTicks = 100

// procRoot is where procfs is mounted.
const procRoot = "/proc"

// sampleResources reads pid's resource use from procfs. With prev, a
// sample of the same process, it also computes CPUPercent. A process that
// is gone gives an error matching os.ErrNotExist. It costs a handful of
// small file reads (well under a millisecond) and starts no process.
func sampleResources(ctx context.Context, pid int, prev *Resources) (Resources, error) {
	r := Resources{PID: pid, SampledAt: time.Now()}
	dir := procRoot + "/" + strconv.Itoa(pid)
	steps := []func() error{
		func() (err error) { r.FDs, err = countDir(dir + "/fd"); return err },
		func() (err error) { r.FDLimit, err = readFDLimit(dir + "/limits"); return err },
		func() error { return readStatus(dir+"/status", &r) },
		func() error {
			st, err := readProcStat(pid)
			r.CPUTime = time.Duration(st.UTime+st.STime) * time.Second / clockTicks
			return err
		},
	}
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return Resources{}, err
		}
		if err := step(); err != nil {
			return Resources{}, fmt.Errorf("sample resources of pid %d: %w", pid, err)
		}
	}
	if prev != nil && prev.PID == pid && r.SampledAt.After(prev.SampledAt) && r.CPUTime >= prev.CPUTime {
		wall := r.SampledAt.Sub(prev.SampledAt)
		r.CPUPercent = 100 * float64(r.CPUTime-prev.CPUTime) / float64(wall)
	}
	// System-wide counters: best effort (a container may hide them).
	if n, err := readUint(procRoot + "/sys/kernel/pty/nr"); err == nil {
		r.PTYs = int(n)
	}
	if n, err := readUint(procRoot + "/sys/kernel/pty/max"); err == nil {
		r.PTYMax = int(n)
	}
	if f, err := readFields(procRoot + "/sys/fs/file-nr"); err == nil && len(f) == 3 {
		r.FilesAllocated, _ = strconv.ParseUint(f[0], 10, 64)
		r.FilesMax, _ = strconv.ParseUint(f[2], 10, 64)
	}
	return r, nil
}

// countDir counts the entries of a directory without stat-ing them.
func countDir(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for {
		names, err := f.Readdirnames(256)
		n += len(names)
		if errors.Is(err, io.EOF) || (err == nil && len(names) == 0) {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// readFDLimit reads the soft "Max open files" limit from /proc/<pid>/limits
// (readable by anyone, unlike prlimit on another user's process).
func readFDLimit(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "Max open files")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 1 {
			break
		}
		if f[0] == "unlimited" {
			return math.MaxUint64, nil
		}
		return strconv.ParseUint(f[0], 10, 64)
	}
	return 0, fmt.Errorf("no \"Max open files\" line in %s", path)
}

// readStatus fills RSS and Threads from /proc/<pid>/status.
func readStatus(path string, r *Resources) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		if len(f) == 0 {
			continue
		}
		switch key {
		case "VmRSS": // "  3836 kB"
			kb, err := strconv.ParseUint(f[0], 10, 64)
			if err != nil {
				return fmt.Errorf("parse VmRSS: %w", err)
			}
			r.RSS = kb << 10
		case "Threads":
			n, err := strconv.Atoi(f[0])
			if err != nil {
				return fmt.Errorf("parse Threads: %w", err)
			}
			r.Threads = n
		}
	}
	return sc.Err()
}

func readFields(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(b)), nil
}

func readUint(path string) (uint64, error) {
	f, err := readFields(path)
	if err != nil {
		return 0, err
	}
	if len(f) != 1 {
		return 0, fmt.Errorf("%s: want one number, got %q", path, f)
	}
	return strconv.ParseUint(f[0], 10, 64)
}

// ErrResourceExhausted matches the error of a call refused because the
// server is close to running out of file descriptors or PTYs.
var ErrResourceExhausted = errors.New("resource exhausted")

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
