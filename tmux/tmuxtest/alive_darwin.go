package tmuxtest

import "golang.org/x/sys/unix"

// Alive reports whether pid is a running process. A zombie (exited, not yet
// reaped) counts as dead, unlike with kill(pid, 0). On macOS it reads the
// p_stat of the process's kinfo_proc (5 is SZOMB).
func Alive(pid int) bool {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && int(k.Proc.P_pid) == pid && k.Proc.P_stat != 5
}

// startTime returns when pid started (microseconds since the epoch, from
// its kinfo_proc), or 0 when it cannot be read: with the PID it names one
// process across PID reuse. (proc reads the same, but its
// tests use this package: importing it would make a cycle.)
func startTime(pid int) uint64 {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(k.Proc.P_pid) != pid {
		return 0
	}
	return uint64(k.Proc.P_starttime.Sec)*1e6 + uint64(k.Proc.P_starttime.Usec)
}
