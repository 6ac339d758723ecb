package diagnostics

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The kernel's log outlives a reaped process: it records a segfault
// ("tmux: server[1234]: segfault at ...") and an OOM kill ("Out of memory:
// Killed process 1234 (tmux: server)") with the PID. Once the journal has
// told diagnose a dead server's PID, the kernel log can say how it ended
// even after its parent reaped it.

// kernelRecord is a kernel log line about a tmux process ending.
type kernelRecord struct {
	Time   time.Time
	PID    int
	Signal syscall.Signal // what the process died of
	Text   string
}

var (
	// "tmux: server[1234]: segfault at 74 ip ..." and the traps.
	kernelFault = regexp.MustCompile(`(?:^|traps: )(tmux[^\[]*)\[(\d+)\]:? (segfault at|general protection|trap invalid opcode|trap divide error)`)
	// "Out of memory: Killed process 1234 (tmux: server) total-vm:..." and
	// "Memory cgroup out of memory: Killed process ...".
	kernelOOM = regexp.MustCompile(`Killed process (\d+) \((tmux[^)]*)\)`)
)

// parseKernelRecord parses one /dev/kmsg record ("pri,seq,usec,flags;text")
// and keeps it if it tells how a tmux process ended. boot is the wall-clock
// time of boot, to date it.
func parseKernelRecord(rec string, boot time.Time) (kernelRecord, bool) {
	head, text, ok := strings.Cut(strings.TrimRight(rec, "\n"), ";")
	if !ok {
		return kernelRecord{}, false
	}
	text, _, _ = strings.Cut(text, "\n") // continuation lines hold key=value context
	f := strings.Split(head, ",")
	if len(f) < 3 {
		return kernelRecord{}, false
	}
	usec, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return kernelRecord{}, false
	}
	r := kernelRecord{Time: boot.Add(time.Duration(usec) * time.Microsecond), Text: text}
	if m := kernelFault.FindStringSubmatch(text); m != nil {
		r.PID, _ = strconv.Atoi(m[2])
		switch m[3] {
		case "trap invalid opcode":
			r.Signal = syscall.SIGILL
		case "trap divide error":
			r.Signal = syscall.SIGFPE
		default:
			r.Signal = syscall.SIGSEGV
		}
		return r, true
	}
	if m := kernelOOM.FindStringSubmatch(text); m != nil {
		r.PID, _ = strconv.Atoi(m[1])
		r.Signal = syscall.SIGKILL
		return r, true
	}
	return kernelRecord{}, false
}

// maxKernelRecords bounds how much of the ring buffer diagnose reads.
const maxKernelRecords = 100000

// readKernelLog reads the kernel's ring buffer from /dev/kmsg without
// waiting for new records, and returns the records about tmux processes
// ending. Reading it needs privileges on most systems (dmesg_restrict).
func readKernelLog(m Machine) ([]kernelRecord, error) {
	recs, err := m.KernelLog()
	if err != nil {
		return nil, err
	}
	boot := time.Now().Add(-uptime(m))
	var out []kernelRecord
	for _, rec := range recs {
		if r, ok := parseKernelRecord(rec, boot); ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// kmsg returns the records in /dev/kmsg, oldest first, without blocking.
// It reads with plain syscalls: the Go runtime would park a non-blocking
// read of a character device in its poller instead of returning EAGAIN.
func kmsg() ([]string, error) {
	fd, err := unix.Open("/dev/kmsg", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("diagnostics: kernel log: %w", err)
	}
	defer unix.Close(fd)
	var out []string
	buf := make([]byte, 8192) // one record per read
	for len(out) < maxKernelRecords {
		n, err := unix.Read(fd, buf)
		switch {
		case errors.Is(err, unix.EPIPE):
			continue // the record was overwritten while we read: skip it
		case errors.Is(err, unix.EAGAIN):
			return out, nil // no more records
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return out, fmt.Errorf("diagnostics: kernel log: %w", err)
		case n <= 0:
			return out, nil
		}
		out = append(out, string(buf[:n]))
	}
	return out, nil
}

// uptime returns how long the machine has run, from /proc/uptime.
func uptime(m Machine) time.Duration {
	b, err := m.ReadFile("/proc/uptime")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	up, _ := strconv.ParseFloat(f[0], 64)
	return time.Duration(up * float64(time.Second))
}

// kernelRecordOf returns the kernel's record of how process pid ended, if
// it logged one after the process started (so that a record about an
// earlier process with the same PID does not count).
func kernelRecordOf(recs []kernelRecord, pid int, started time.Time) (kernelRecord, bool) {
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		// The start time may have whole seconds only (tmux #{start_time}).
		if r.PID == pid && (started.IsZero() || r.Time.After(started.Add(-time.Second))) {
			return r, true
		}
	}
	return kernelRecord{}, false
}
