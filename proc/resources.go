package proc

import (
	"github.com/shirou/gopsutil/v3/process"

	"context"
	"errors"
	"fmt"
	"math"
	"os"
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
func (r Resources) FDRatio() float64 { return Ratio(uint64(r.FDs), r.FDLimit) }

// PTYRatio returns PTYs over PTYMax (0 when the maximum is unknown).
func (r Resources) PTYRatio() float64 { return Ratio(uint64(r.PTYs), uint64(r.PTYMax)) }

// Ratio returns used over limit, 0 when the limit is unknown (0 or unlimited).
func Ratio(used, limit uint64) float64 {
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
	r.Runnable = Runnable(pid)
	if prev != nil && prev.PID == pid && r.SampledAt.After(prev.SampledAt) && r.CPUTime >= prev.CPUTime {
		wall := r.SampledAt.Sub(prev.SampledAt)
		r.CPUPercent = 100 * float64(r.CPUTime-prev.CPUTime) / float64(wall)
	}
	sys := SystemResources()
	r.PTYs, r.PTYMax, r.FilesAllocated, r.FilesMax = sys.PTYs, sys.PTYMax, sys.FilesAllocated, sys.FilesMax
	return r, nil
}
