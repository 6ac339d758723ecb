package proc

import (
	"fmt"
	"strconv"
	"strings"
)

// ProcStat is what the supervisor and diagnose use of a process's state:
// on Linux part of /proc/<pid>/stat, on macOS of its kinfo_proc
// (procstat_linux.go, procstat_darwin.go).
type ProcStat struct {
	State byte   // R, S, D, Z, T, ...; 0 when the platform cannot tell
	UTime uint64 // clock ticks in user mode (Linux only)
	STime uint64 // clock ticks in kernel mode (Linux only)
	// StartTime, with the PID, identifies a process across PID reuse:
	// clock ticks after boot on Linux, microseconds since the epoch on
	// macOS. Compare it only with values read on the same machine.
	StartTime uint64
	// Exiting: the process has begun to exit (Linux: PF_EXITING in the
	// flags of /proc/<pid>/stat; macOS: P_WEXIT), zombies included. The
	// kernel sets it before it closes the process's files, so a server
	// whose socket refuses connections because it is dying shows it from
	// the refusal on, however long the rest of its exit takes.
	Exiting bool
}

// linuxPFExiting is PF_EXITING, the task flag (field 9 of /proc/<pid>/stat)
// the kernel sets as a process starts to exit (include/linux/sched.h).
const linuxPFExiting = 0x4

// parseProcStat parses Linux's /proc/<pid>/stat.
func parseProcStat(s string) (ProcStat, error) {
	// The command name is in parentheses and may hold spaces and ")": the
	// fields start after the last ")".
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ProcStat{}, fmt.Errorf("parse /proc stat: no command name in %q", s)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); flags, utime, stime and starttime are
	// fields 9, 14, 15, 22.
	if len(f) < 20 || len(f[0]) != 1 {
		return ProcStat{}, fmt.Errorf("parse /proc stat: %d fields after the command name", len(f))
	}
	var st ProcStat
	var flags uint64
	st.State = f[0][0]
	for _, x := range []struct {
		field int
		dst   *uint64
	}{{9, &flags}, {14, &st.UTime}, {15, &st.STime}, {22, &st.StartTime}} {
		v, err := strconv.ParseUint(f[x.field-3], 10, 64)
		if err != nil {
			return ProcStat{}, fmt.Errorf("parse /proc stat field %d: %w", x.field, err)
		}
		*x.dst = v
	}
	st.Exiting = flags&linuxPFExiting != 0
	return st, nil
}

// macOS p_stat values (sys/proc.h).
const (
	darwinSIDL   = 1 // being created by fork
	darwinSRUN   = 2 // live
	darwinSSLEEP = 3 // sleeping on an address
	darwinSSTOP  = 4 // stopped (SIGSTOP, a debugger)
	darwinSZOMB  = 5 // exited, not reaped
)

// darwinProcStat builds a ProcStat from the p_stat and p_starttime of a
// macOS kinfo_proc. XNU leaves a live process in SRUN whatever its threads
// do (running and sleeping are states of threads), so SRUN and SIDL give
// state 0, unknown: whether the process runs comes from its threads
// (runnable in procsample_darwin.go). CPU ticks are not kept per process
// there, so UTime and STime stay 0.
func darwinProcStat(pstat int8, startSec, startUsec int64) ProcStat {
	st := ProcStat{StartTime: uint64(startSec)*1_000_000 + uint64(startUsec)}
	switch pstat {
	case darwinSSLEEP:
		st.State = 'S'
	case darwinSSTOP:
		st.State = 'T'
	case darwinSZOMB:
		st.State = 'Z'
	}
	return st
}
