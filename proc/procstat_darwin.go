package proc

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// kinfoProc reads pid's kinfo_proc (sysctl kern.proc.pid), which exists
// for zombies too. A PID that names no process gives an error matching
// os.ErrNotExist.
func kinfoProc(pid int) (*unix.KinfoProc, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if errors.Is(err, unix.EIO) || err == nil && int(k.Proc.P_pid) != pid {
		// The sysctl answers nothing (x/sys reports EIO) for no process.
		return nil, fmt.Errorf("kern.proc.pid %d: %w", pid, os.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("kern.proc.pid %d: %w", pid, err)
	}
	return k, nil
}

// darwinPWEXIT is the p_flag bit of a process working on its exit
// (sys/proc.h).
const darwinPWEXIT = 0x2000

// ReadProcStat reads pid's state and start time from its kinfo_proc
// (darwinProcStat). It also works for a zombie.
func ReadProcStat(pid int) (ProcStat, error) {
	k, err := kinfoProc(pid)
	if err != nil {
		return ProcStat{}, err
	}
	st := darwinProcStat(k.Proc.P_stat, int64(k.Proc.P_starttime.Sec), int64(k.Proc.P_starttime.Usec))
	st.Exiting = k.Proc.P_flag&darwinPWEXIT != 0 || st.State == 'Z'
	return st, nil
}

// ZombieStatus returns the exit status of process pid if it has exited but
// was not reaped yet (tmux servers are reparented, and their new parent may
// be slow to reap them): the kinfo_proc of a zombie holds it in p_xstat in
// waitpid form. With startTime not 0, only the process that started then
// counts. ok is false for a running process, a reaped one, or one that
// reused the PID.
func ZombieStatus(pid int, startTime uint64) (syscall.WaitStatus, bool) {
	k, err := kinfoProc(pid)
	if err != nil {
		return 0, false
	}
	st := darwinProcStat(k.Proc.P_stat, int64(k.Proc.P_starttime.Sec), int64(k.Proc.P_starttime.Usec))
	if st.State != 'Z' || startTime != 0 && st.StartTime != startTime {
		return 0, false
	}
	return syscall.WaitStatus(k.Proc.P_xstat), true
}
