package diagnostics

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// checkPTYs compares the pseudo-terminals in use with the system maximum.
func checkPTYs(m Machine) Check {
	switch m.GOOS {
	case "linux":
		c := Check{ID: "system.ptys", Title: "Pseudo-terminals"}
		r := m.System()
		if r.PTYMax == 0 {
			c.Status, c.Summary = StatusSkipped, "skipped: kernel.pty.max is not readable here"
			return c
		}
		return ptyLevel(c, uint64(r.PTYs), uint64(r.PTYMax), "kernel.pty.max", "sudo sysctl -w kernel.pty.max=8192")
	case "darwin":
		return checkDarwinPTYs(m)
	}
	return Check{ID: "system.ptys", Title: "Pseudo-terminals", Status: StatusSkipped, Summary: "skipped: not known on " + m.GOOS}
}

// checkFileHandles compares the file handles open system-wide with the
// kernel's maximum (fs.file-nr).
func checkFileHandles(m Machine) Check {
	c := Check{ID: "system.files", Title: "System file handles"}
	r := m.System()
	if r.FilesMax == 0 || m.GOOS != "linux" {
		c.Status, c.Summary = StatusSkipped, "skipped: fs.file-nr is not readable here"
		return c
	}
	c.fact("open", r.FilesAllocated)
	c.fact("fs.file-max", r.FilesMax)
	c.Status = levelStatus(r.FilesAllocated, r.FilesMax)
	c.Summary = fmt.Sprintf("%d of %d file handles open system-wide (%s)", r.FilesAllocated, r.FilesMax, percent(r.FilesAllocated, r.FilesMax))
	if c.Status != StatusOK {
		c.Remedy = "find the process holding them (often a leak), or raise fs.file-max"
		c.Commands = []string{"sudo sysctl -w fs.file-max=" + strconv.FormatUint(2*r.FilesMax, 10)}
	}
	return c
}

// memTotal returns MemTotal from /proc/meminfo in bytes, or 0.
func memTotal(m Machine) uint64 {
	b, err := m.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				return 0
			}
			kb, _ := strconv.ParseUint(f[0], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// checkSelf reports this process's own fds and goroutines: the tmux-mcp
// that serves the diagnose tool.
func checkSelf() Check {
	c := Check{ID: "tmux_mcp.self", Title: "This tmux-mcp process"}
	var lim unix.Rlimit
	limErr := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim)
	fds, fdErr := os.ReadDir("/proc/self/fd")
	g := runtime.NumGoroutine()
	c.fact("pid", os.Getpid())
	c.fact("goroutines", g)
	if fdErr != nil || limErr != nil {
		c.Status, c.Summary = StatusOK, fmt.Sprintf("%d goroutines (open fds not readable here)", g)
		return c
	}
	c.fact("fds", len(fds))
	c.fact("fd limit", lim.Cur)
	c.Status = levelStatus(uint64(len(fds)), lim.Cur)
	c.Summary = fmt.Sprintf("%d fds open of %d (%s), %d goroutines", len(fds), lim.Cur, percent(uint64(len(fds)), lim.Cur), g)
	if c.Status != StatusOK {
		c.Remedy = "tmux-mcp is close to its own fd limit: restart it, and report the leak"
	}
	return c
}
