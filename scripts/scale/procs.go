package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// This file reads processes from /proc (Linux only: `make scale` runs on
// Linux; elsewhere every figure reads as zero).

// threadCPUms returns the CPU time of pid's main thread in milliseconds
// from /proc/PID/schedstat (nanoseconds), else processCPUms. For the
// tmux server, which has one thread, it is the process's.
func threadCPUms(pid int) float64 {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/schedstat"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if ns, err := strconv.ParseUint(f[0], 10, 64); err == nil {
				return float64(ns) / 1e6
			}
		}
	}
	return processCPUms(pid)
}

// processCPUms returns the CPU time (user+system) of every thread of pid,
// those that ended included, in milliseconds: utime+stime from
// /proc/PID/stat, in clock ticks of 10 ms. (schedstat counts the main
// thread only, which is not tmux-mcp's: Go runs goroutines on many.)
func processCPUms(pid int) float64 {
	f := statFields(pid)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return float64(ut+st) * 10 // USER_HZ is 100 on Linux
}

// statFields returns the fields of /proc/PID/stat after the command name:
// f[0] is the state (field 3), f[11] utime (field 14).
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// rssBytes returns pid's resident set size.
func rssBytes(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// fdCount returns how many file descriptors pid has open.
func fdCount(pid int) int {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		return 0
	}
	return len(ents)
}

// alive reports whether pid runs; a zombie counts as dead.
func alive(pid int) bool {
	f := statFields(pid)
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// procRef is a process known by PID and start time, so that a later
// process with the same PID is never signalled.
type procRef struct {
	pid   int
	start string
}

func refOf(pid int) procRef {
	f := statFields(pid)
	if len(f) < 20 {
		return procRef{pid: pid}
	}
	return procRef{pid: pid, start: f[19]}
}

// same reports whether the process is still the one referenced.
func (r procRef) same() bool {
	return r.pid > 0 && alive(r.pid) && refOf(r.pid).start == r.start
}

// kill sends SIGKILL if the process is still the one referenced.
func (r procRef) kill() {
	if r.same() {
		syscall.Kill(r.pid, syscall.SIGKILL) //nolint:errcheck // it may exit meanwhile
	}
}

// processesNaming returns the live processes (not this one) whose command
// line or environment contains dir: the run's tmux server, tmux-mcp, and
// the programs in the panes (tmux sets TMUX to the socket path in each).
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
