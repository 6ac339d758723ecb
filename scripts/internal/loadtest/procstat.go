package loadtest

import (
	"os"
	"strconv"
	"strings"

	"github.com/shirou/gopsutil/v3/process"
)

// ProcStat is one look at a process.
type ProcStat struct {
	RSS     uint64
	FDs     int
	Threads int
	// CPUms is the main thread's CPU time so far (see ThreadCPUms); for
	// a tmux server, which has one thread, the process's.
	CPUms float64
}

// StatOf samples pid with gopsutil. It reports false, and a zero
// ProcStat, when pid does not run.
func StatOf(pid int) (ProcStat, bool) {
	if pid <= 0 || !Alive(pid) {
		return ProcStat{}, false
	}
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		return ProcStat{}, false
	}
	var s ProcStat
	if mi, err := p.MemoryInfo(); err == nil {
		s.RSS = mi.RSS
	}
	if n, err := p.NumFDs(); err == nil {
		s.FDs = int(n)
	}
	if n, err := p.NumThreads(); err == nil {
		s.Threads = int(n)
	}
	s.CPUms = ThreadCPUms(pid)
	return s, true
}

// ThreadCPUms returns the CPU time of pid's main thread in milliseconds
// from /proc/PID/schedstat (nanoseconds) when the kernel has it, else
// ProcessCPUms.
func ThreadCPUms(pid int) float64 {
	if ns, ok := schedstatNs(pid); ok {
		return float64(ns) / 1e6
	}
	return ProcessCPUms(pid)
}

// ProcessCPUms returns the CPU time (user+system) of every thread of pid,
// those that ended included, in milliseconds: utime+stime from
// /proc/PID/stat, in clock ticks of 10 ms. (schedstat counts the main
// thread only, which is not tmux-mcp's: Go runs goroutines on many.)
func ProcessCPUms(pid int) float64 {
	f := statFields(pid)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return float64(ut+st) * 10 // USER_HZ is 100 on Linux
}

// schedstatNs reads the time pid has run on a CPU, in nanoseconds, from
// /proc/PID/schedstat.
func schedstatNs(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/schedstat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	ns, err := strconv.ParseUint(f[0], 10, 64)
	return ns, err == nil
}

// CPUClock says where ThreadCPUms's times come from on this machine.
func CPUClock() string {
	if _, ok := schedstatNs(os.Getpid()); ok {
		return "/proc/PID/schedstat (nanoseconds)"
	}
	return "/proc/PID/stat utime+stime (clock ticks, 10 ms)"
}
