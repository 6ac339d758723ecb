package proc

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"github.com/shirou/gopsutil/v3/process"
	"golang.org/x/sys/unix"
)

// proc_info(2) call and flavors (sys/proc_info.h), what libproc's
// proc_pidinfo wraps.
const (
	procInfoCallPIDInfo = 2 // PROC_INFO_CALL_PIDINFO
	procPIDListFDs      = 1 // PROC_PIDLISTFDS
	procPIDTaskInfo     = 4 // PROC_PIDTASKINFO
)

// procPIDInfo calls proc_info(PROC_INFO_CALL_PIDINFO, pid, flavor, 0, buf)
// and returns the bytes it filled in; with an empty buf, the size it would
// need.
func procPIDInfo(pid, flavor int, buf []byte) (int, error) {
	var p unsafe.Pointer
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	// There is no libSystem wrapper in x/sys for proc_pidinfo, and cgo is
	// off in cross builds: the raw call, as libproc makes it.
	//lint:ignore SA1019 no libSystem wrapper to call instead (see above)
	n, _, errno := unix.Syscall6(unix.SYS_PROC_INFO, procInfoCallPIDInfo, uintptr(pid), uintptr(flavor), 0, uintptr(p), uintptr(len(buf)))
	runtime.KeepAlive(buf)
	if errno != 0 {
		return 0, fmt.Errorf("proc_info pid %d flavor %d: %w", pid, flavor, errno)
	}
	return int(n), nil
}

// sampleFDs reads p's open fds into r with proc_info PROC_PIDLISTFDS (gopsutil
// v3 does not count them on macOS). One process cannot read another's
// RLIMIT_NOFILE on macOS, so FDLimit is known for tmux-mcp itself only and
// stays 0 (unknown) otherwise; Server.sample fills in the limit of a server
// it started.
func sampleFDs(_ context.Context, p *process.Process, r *Resources) error {
	pid := int(p.Pid)
	size, err := procPIDInfo(pid, procPIDListFDs, nil) // an upper bound
	if err != nil {
		return err
	}
	buf := make([]byte, size+16*darwinFDInfoSize)
	n, err := procPIDInfo(pid, procPIDListFDs, buf)
	if err != nil {
		return err
	}
	r.FDs = darwinFDCount(n)
	if pid == os.Getpid() {
		var lim unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err == nil {
			r.FDLimit = lim.Cur
		}
	}
	return nil
}

// runnable reports whether one of pid's threads is running or runnable now
// (pti_numrunning of PROC_PIDTASKINFO): a macOS process's own state says
// nothing about it (darwinProcStat).
func Runnable(pid int) bool {
	buf := make([]byte, darwinTaskInfoSize)
	n, err := procPIDInfo(pid, procPIDTaskInfo, buf)
	if err != nil {
		return false
	}
	ti, err := parseDarwinTaskInfo(buf[:n])
	return err == nil && ti.Running > 0
}
