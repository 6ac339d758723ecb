package loadtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// statFields returns the fields of /proc/PID/stat after the command name:
// f[0] is the state (field 3), f[11] utime (field 14), f[19] the start
// time (field 22).
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

// Alive reports whether pid runs; a zombie counts as dead.
func Alive(pid int) bool {
	f := statFields(pid)
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// startTime returns pid's start time in clock ticks since boot, to tell a
// process from a later one with its PID; 0 when pid is gone.
func startTime(pid int) uint64 {
	f := statFields(pid)
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

// Ref is a process known by PID and start time, so that a later process
// with the same PID is never signalled.
type Ref struct {
	PID   int
	start uint64
}

// RefOf refers to the process that has pid now.
func RefOf(pid int) Ref { return Ref{PID: pid, start: startTime(pid)} }

// Same reports whether the process is still the one referenced.
func (r Ref) Same() bool { return r.PID > 0 && Alive(r.PID) && startTime(r.PID) == r.start }

// Signal sends sig to the referenced process if it is still that process,
// and reports whether it did.
func (r Ref) Signal(sig syscall.Signal) bool {
	if !r.Same() {
		return false
	}
	return syscall.Kill(r.PID, sig) == nil
}

// ProcessesNaming returns the live processes (not this one) whose command
// line or environment contains dir: tmux servers and clients on a run's
// sockets, tmux-mcp, and the programs in the panes (tmux sets TMUX to the
// socket path in every pane).
func ProcessesNaming(dir string) []Ref {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	needle := []byte(dir)
	var out []Ref
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || !Alive(pid) {
			continue
		}
		base := filepath.Join("/proc", e.Name())
		cmdline, _ := os.ReadFile(filepath.Join(base, "cmdline"))
		environ, _ := os.ReadFile(filepath.Join(base, "environ"))
		if bytes.Contains(cmdline, needle) || bytes.Contains(environ, needle) {
			out = append(out, RefOf(pid))
		}
	}
	return out
}

// Describe is "PID (command line)" for a report.
func Describe(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	cmd := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if len(cmd) > 80 {
		cmd = cmd[:80] + "..."
	}
	return strconv.Itoa(pid) + " (" + cmd + ")"
}

// Reap waits up to within for the processes in refs to exit and for no
// process to name dir (see ProcessesNaming), then SIGKILLs whatever is
// left and returns it, described: the run's leaks.
func Reap(dir string, refs []Ref, within time.Duration) []string {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		busy := false
		for _, p := range refs {
			busy = busy || p.Same()
		}
		if !busy && len(ProcessesNaming(dir)) == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	var leaked []string
	for _, p := range refs {
		if p.Same() {
			leaked = append(leaked, Describe(p.PID))
			p.Signal(syscall.SIGKILL)
		}
	}
	for _, p := range ProcessesNaming(dir) {
		leaked = append(leaked, Describe(p.PID))
		p.Signal(syscall.SIGKILL)
	}
	return leaked
}
