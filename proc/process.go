package proc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// StartTime returns pid's start time (ProcStat.StartTime), which
// together with the PID identifies a process across PID reuse.
func StartTime(pid int) (uint64, error) {
	st, err := ReadProcStat(pid)
	if err != nil {
		return 0, fmt.Errorf("process start time of %d: %w", pid, err)
	}
	return st.StartTime, nil
}

// Exiting reports whether process pid (the one that started at startTime,
// when that is not 0) has begun to exit and not yet been reaped: it will
// be gone without anyone's help, and what it no longer answers says
// nothing about a live server (ProcStat.Exiting).
func Exiting(pid int, startTime uint64) bool {
	if pid <= 0 {
		return false
	}
	st, err := ReadProcStat(pid)
	if err != nil {
		return false
	}
	return st.Exiting && (startTime == 0 || st.StartTime == startTime)
}

// PIDAlive reports whether process pid exists, is not a zombie, and (when
// startTime is not 0) is the process that started at startTime and not a
// later one that reused its PID.
func PIDAlive(pid int, startTime uint64) bool {
	if pid <= 0 {
		return false
	}
	if err := unix.Kill(pid, 0); err != nil && !errors.Is(err, unix.EPERM) {
		return false
	}
	st, err := ReadProcStat(pid)
	if err != nil {
		// Unreadable (or the process just went): trust kill(2) only when
		// there is no identity to check.
		return startTime == 0 && !errors.Is(err, os.ErrNotExist)
	}
	if st.State == 'Z' || st.State == 'X' {
		return false
	}
	return startTime == 0 || st.StartTime == startTime
}

// ProbeSocket connects to the unix socket at path and hangs up at once. It
// never starts a server and speaks no tmux protocol: nil means something
// listens there, not that it answers (a stopped server's socket still
// accepts into its backlog). Errors wrap the errno: ENOENT (socket file
// missing), ECONNREFUSED (stale socket: nobody listens), EAGAIN (Linux:
// backlog full), EACCES, or a timeout.
func ProbeSocket(ctx context.Context, path string, timeout time.Duration) error {
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("probe socket %s: %w", path, err)
	}
	c.Close()
	return nil
}

// SocketInode returns the inode of the socket file at path, or 0.
func SocketInode(path string) uint64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}
