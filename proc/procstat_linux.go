package proc

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ReadProcStat parses /proc/<pid>/stat. It also works for a zombie.
func ReadProcStat(pid int) (ProcStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ProcStat{}, err
	}
	return parseProcStat(string(b))
}

// ZombieStatus returns the exit status of process pid if it has exited but
// was not reaped yet (tmux servers are reparented, and their new parent may
// be slow to reap them): field 52 of /proc/PID/stat holds it in waitpid
// form. With startTime not 0, only the process that started then counts.
// ok is false for a running process, a reaped one, or one that reused the
// PID.
func ZombieStatus(pid int, startTime uint64) (syscall.WaitStatus, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	st, err := parseProcStat(string(b))
	if err != nil || st.State != 'Z' || (startTime != 0 && st.StartTime != startTime) {
		return 0, false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	const exitCodeField = 52 // 1-based; f[0] is field 3
	if len(f) < exitCodeField-2 {
		return 0, false
	}
	code, err := strconv.Atoi(f[exitCodeField-3])
	if err != nil {
		return 0, false
	}
	return syscall.WaitStatus(code), true
}
