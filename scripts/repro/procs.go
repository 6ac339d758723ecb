package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/shirou/gopsutil/v3/process"
)

// procStat is one look at a process.
type procStat struct {
	RSS     uint64
	FDs     int
	Threads int
	CPUms   float64 // user+system CPU time so far
}

// statOf samples pid with gopsutil; CPU time comes from schedstat (ns
// resolution) when the kernel has it, else from gopsutil's clock ticks.
func statOf(pid int) (procStat, bool) {
	if pid <= 0 || !alive(pid) {
		return procStat{}, false
	}
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		return procStat{}, false
	}
	var s procStat
	if mi, err := p.MemoryInfo(); err == nil {
		s.RSS = mi.RSS
	}
	if n, err := p.NumFDs(); err == nil {
		s.FDs = int(n)
	}
	if n, err := p.NumThreads(); err == nil {
		s.Threads = int(n)
	}
	s.CPUms = cpuMs(pid, p)
	return s, true
}

// cpuMs returns pid's CPU time in milliseconds.
func cpuMs(pid int, p *process.Process) float64 {
	if ns, ok := schedstatNs(pid); ok {
		return float64(ns) / 1e6
	}
	if t, err := p.Times(); err == nil {
		return (t.User + t.System) * 1000
	}
	return 0
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

// cpuClock says where CPU times come from on this machine.
func cpuClock() string {
	if _, ok := schedstatNs(os.Getpid()); ok {
		return "/proc/PID/schedstat (nanoseconds)"
	}
	return "gopsutil Times (clock ticks, 10 ms)"
}

// alive reports whether pid runs; a zombie counts as dead.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] != 'Z' && b[i+2] != 'X'
}

// startTime returns pid's start time in clock ticks since boot (field 22
// of /proc/PID/stat), to tell a process from a later one with its PID.
func startTime(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

// procRef is a process the run knows by PID and start time.
type procRef struct {
	pid   int
	start uint64
}

func refOf(pid int) procRef { return procRef{pid: pid, start: startTime(pid)} }

// same reports whether the process is still the one referenced.
func (r procRef) same() bool { return r.pid > 0 && alive(r.pid) && startTime(r.pid) == r.start }

// signal sends sig to the referenced process if it is still that process.
func (r procRef) signal(sig syscall.Signal) bool {
	if !r.same() {
		return false
	}
	return syscall.Kill(r.pid, sig) == nil
}

// processesNaming returns the live processes (not this one) whose command
// line or environment contains dir: tmux servers and clients on the run's
// sockets, and the programs in their panes (tmux sets TMUX to the socket
// path in every pane).
func processesNaming(dir string) []procRef {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	needle := []byte(dir)
	var out []procRef
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || !alive(pid) {
			continue
		}
		base := filepath.Join("/proc", e.Name())
		cmdline, _ := os.ReadFile(filepath.Join(base, "cmdline"))
		environ, _ := os.ReadFile(filepath.Join(base, "environ"))
		if bytes.Contains(cmdline, needle) || bytes.Contains(environ, needle) {
			out = append(out, refOf(pid))
		}
	}
	return out
}

// describe is "PID (command line)" for a report.
func describe(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	cmd := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if len(cmd) > 80 {
		cmd = cmd[:80] + "..."
	}
	return strconv.Itoa(pid) + " (" + cmd + ")"
}
