package proc

import (
	"context"

	"github.com/shirou/gopsutil/v3/process"
)

// sampleFDs reads p's open fds and RLIMIT_NOFILE soft limit into r. On
// Linux gopsutil reads both from procfs (/proc/PID/fd, /proc/PID/limits).
func sampleFDs(ctx context.Context, p *process.Process, r *Resources) error {
	n, err := p.NumFDsWithContext(ctx)
	r.FDs = int(n)
	if err != nil {
		return err
	}
	limits, err := p.RlimitWithContext(ctx)
	for _, l := range limits {
		if l.Resource == process.RLIMIT_NOFILE {
			r.FDLimit = l.Soft
		}
	}
	return err
}

// runnable reports whether pid is running or waiting for a CPU now
// (state R in /proc/PID/stat).
func Runnable(pid int) bool {
	st, err := ReadProcStat(pid)
	return err == nil && st.State == 'R'
}
